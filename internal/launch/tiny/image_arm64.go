package tiny

import _ "embed"

//go:embed elf/arm64
var image []byte
