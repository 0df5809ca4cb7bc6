package doctor

import (
	"fmt"
	"strings"
)

// pmuCompatible is the device-tree compatible of the PMU of the CPU pmc identified
// ("arm,cortex-a7-pmu"), from the device tree's cpu nodes or pmc's table.
func (in *input) pmuCompatible() string {
	if dt := in.p.DeviceTree; dt != nil {
		for _, c := range dt.CPUCompatible {
			if strings.HasPrefix(c, "arm,cortex-") || strings.HasPrefix(c, "arm,neoverse-") || c == "arm,arm1176jzf-s" {
				if c == "arm,arm1176jzf-s" {
					return "arm,arm1176-pmu"
				}
				return c + "-pmu"
			}
		}
	}
	m := in.m.WithTable()
	if t := m.Table; t != nil && !strings.Contains(m.Note, "architecture's table") {
		switch {
		case strings.HasPrefix(t.Name, "cortex-") || strings.HasPrefix(t.Name, "neoverse-"):
			return "arm," + t.Name + "-pmu"
		case t.Name == "arm1176":
			return "arm,arm1176-pmu"
		}
	}
	if in.p.Arch == "aarch64" {
		return "arm,armv8-pmuv3"
	}
	return "arm,cortex-aN-pmu (the CPU's own: see Documentation/devicetree/bindings/arm/pmu.yaml)"
}

// pmuNode is the device-tree source of the PMU node to add.
func (in *input) pmuNode() string {
	return fmt.Sprintf(`pmu { compatible = "%s"; interrupts = <GIC_PPI 7 (GIC_CPU_MASK_SIMPLE(%d) | IRQ_TYPE_LEVEL_HIGH)>; };`,
		in.pmuCompatible(), max(in.m.Processors, 1))
}

var dtApply = []string{
	"apply: as an overlay (/ { fragment@0 { target-path = \"/\"; __overlay__ { <node> }; }; }; dtc -@ -I dts -O dtb -o pmu.dtbo; Raspberry Pi: dtoverlay=pmu in config.txt),",
	"or in the board's dtb: dtc -I dtb -O dts -o board.dts board.dtb, add the node at the root, dtc -O dtb -o board.dtb board.dts, reboot (interrupts: the SoC's PMU interrupt; a GIC PPI or one SPI per core with interrupt-affinity)",
}

// dtProblem says what is wrong with the device tree's PMU description ("" when nothing),
// and whether it stops counting (a node without interrupts only stops sampling).
func dtProblem(in *input) (string, bool) {
	dt := in.p.DeviceTree
	if dt == nil {
		return "", false
	}
	if len(dt.PMUs) == 0 {
		return "the device tree has no PMU node, so the kernel registers no PMU for the CPUs", true
	}
	for _, n := range dt.PMUs {
		switch {
		case len(n.Compatible) == 0:
			return "the device tree's PMU node " + n.Path + " is empty (no compatible), so no driver binds to it", true
		case n.Status != "" && n.Status != "okay" && n.Status != "ok":
			return "the device tree's PMU node " + n.Path + " has status \"" + n.Status + "\"", true
		}
	}
	if in.m.Core == nil && !driverMissing(in) {
		return fmt.Sprintf("the device tree's PMU node %s (%s) bound no driver: its compatible may not match the CPU, or the kernel lacks the driver",
			dt.PMUs[0].Path, strings.Join(dt.PMUs[0].Compatible, ", ")), true
	}
	for _, n := range dt.PMUs {
		if !n.Interrupts {
			return "the device tree's PMU node " + n.Path + " has no interrupts: counting works, sampling does not", false
		}
	}
	return "", false
}

func checkDeviceTree(in *input) *Check {
	dt := in.p.DeviceTree
	if dt == nil || !in.arm() {
		return nil
	}
	c := &Check{ID: "firmware.devicetree", Title: "device tree PMU node"}
	msg, stops := dtProblem(in)
	switch {
	case msg == "":
		var names []string
		for _, n := range dt.PMUs {
			names = append(names, n.Path+" ("+strings.Join(n.Compatible, ", ")+")")
		}
		c.Verdict, c.Found = OK, strings.Join(names, "; ")
		return c
	case !stops:
		c.Verdict, c.Found = Warning, msg
		c.Fix = []string{"add the PMU interrupt to the node: " + in.pmuNode()}
		return c
	}
	c.Verdict, c.Found = Problem, msg
	if dt.Model != "" {
		c.Found += " (model: " + dt.Model + ")"
	}
	c.Fix = append([]string{"add (or fill) the root node: " + in.pmuNode()}, dtApply...)
	return c
}

func checkACPI(in *input) *Check {
	irqs := in.p.MADTPMUIRQs
	if irqs == nil || !in.arm() {
		return nil
	}
	c := &Check{ID: "firmware.acpi", Title: "ACPI PMU interrupts"}
	if allZero(irqs) {
		c.Verdict = Problem
		c.Found = fmt.Sprintf("the MADT's %d GICC entries give no performance interrupt", len(irqs))
		c.Fix = []string{"the firmware must fill the GICC Performance Interrupt GSIV: update the firmware (UEFI/ACPI tables) of the board or VM"}
		return c
	}
	c.Verdict = OK
	c.Found = fmt.Sprintf("the MADT gives GSIV %d for the PMU (%d CPUs)", irqs[0], len(irqs))
	return c
}

// driverMissing: the kernel configuration says the ARM PMU driver is not built.
func driverMissing(in *input) bool {
	config, _ := in.p.KernelConfig()
	return config["CONFIG_HW_PERF_EVENTS"] == "n" || config["CONFIG_ARM_PMU"] == "n"
}
