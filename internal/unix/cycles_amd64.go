package unix

const cycleCounterArch = "rdpmc"
