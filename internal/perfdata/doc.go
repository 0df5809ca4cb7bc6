// Package perfdata reads and writes perf.data files, the format of `perf record`, with no
// kernel involved: bytes or an io.ReaderAt in, an io.WriteSeeker out.
//
// The reader decodes the file header, the event attributes with their ids, the records of
// the data section (samples per their attribute's sample_type, branch stacks included,
// sample_id_all trailers, MMAP/MMAP2, COMM, FORK, EXIT, LOST, LOST_SAMPLES, FINISHED_ROUND;
// other types are kept as Unknown, an AUXTRACE record's trace is passed over, the records
// inside perf record -z's COMPRESSED ones come out in their place) and the
// header features (build ids, host strings, CPU counts, command line, event and group
// descriptions), each optional: one that does not decode is skipped and named in
// Features.Skipped. perf's pipe format (perf record -o -) is read from a stream (NewPipe)
// or a file: its header records (HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE, TRACING_DATA)
// stand for the header. Malformed input is an error of one line, never a panic.
//
// RawDecoder decodes the same records as a sampling counter's ring buffer hands them over
// (pmc record), plus THROTTLE/UNTHROTTLE, so no other package reads records by offsets.
//
// The writer produces files that perf 6.1 reads: it writes a valid header first (data size
// still open), appends records, and at Close writes the features and the final sizes, so an
// interrupted writer still leaves a file the reader (and perf, with a warning) accepts.
// NewPipeWriter writes the pipe format instead, to any io.Writer (perf report -i - reads it).
package perfdata
