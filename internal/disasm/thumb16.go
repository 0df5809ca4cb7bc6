package disasm

func thumb16(hw uint16, c *thumbCtx) (Inst, bool) {
	return Inst{}, false
}
