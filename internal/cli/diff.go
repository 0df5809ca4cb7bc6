package cli

import "github.com/spf13/cobra"

func newDiffCmd(e *env) *cobra.Command { return &cobra.Command{Use: "diff", Hidden: true} }
