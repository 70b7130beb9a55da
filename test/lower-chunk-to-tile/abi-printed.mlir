// Regression: the discardable `chunk.abi` attribute of tile.func is printed
// in textual IR and survives a print/parse round trip.
// RUN: overlap-opt %S/spans.mlir -p lower-chunk-to-tile | filecheck %s
// RUN: overlap-opt %S/spans.mlir -p lower-chunk-to-tile > %t.mlir
// RUN: overlap-opt %t.mlir --print-op-generic | filecheck %s

// CHECK: chunk.abi = {flags = "syn_flags", epoch = "syn_epoch"
