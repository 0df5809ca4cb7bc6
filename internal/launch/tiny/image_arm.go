package tiny

import _ "embed"

//go:embed elf/arm
var image []byte
