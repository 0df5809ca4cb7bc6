package disasm

func thumb32(hw1, hw2 uint16, c *thumbCtx) (Inst, bool) {
	return Inst{}, false
}
