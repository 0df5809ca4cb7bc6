// Package zstd writes Zstandard frames (RFC 8878): pmc record -z compresses its records with
// it, as perf record -z does with libzstd. It is an encoder only and a small one: the
// decoder is the standard library's (reached through debug/elf: Decode, ELFPrefix).
//
// What it writes:
//   - one frame, as a stream (Encoder.Append, each call's output flushed so that it decodes
//     to everything appended so far, as perf's ZSTD_flushStream does; Close ends the frame)
//     or at once (Compress, with the content size);
//   - blocks of at most 128 KiB: Compressed blocks whose literals are Huffman coded (the
//     table described by its weights, FSE-compressed or 4 bits each), RLE or Raw, and whose
//     sequence codes each use the cheapest of the predefined FSE distribution, one
//     repeated code, or a distribution of the block's own; RLE blocks for a run of one
//     byte; Raw blocks when compressing does not pay;
//   - matches found by a hash table over a 512 KiB window (the window of libzstd's fast
//     levels), the repeat offsets kept as the RFC's decoder keeps them (3.1.2.5);
//   - optionally the content checksum (the low 32 bits of XXH64 over the content).
//
// Nothing is computed at package initialization: the FSE and hash tables belong to each
// Encoder and are built when it is made (pmc pays for them only when it compresses).
package zstd
