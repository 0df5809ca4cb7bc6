package tiny

import _ "embed"

//go:embed elf/amd64
var image []byte
