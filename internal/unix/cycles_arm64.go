package unix

const cycleCounterArch = "pmccntr"
