package cli

import "github.com/pmc-tools/pmc/internal/record"

// sampledTables is the archive's choice of tables (record.ArchiveTables), as the report and
// annotate tests build archives.
var sampledTables = record.ArchiveTables
