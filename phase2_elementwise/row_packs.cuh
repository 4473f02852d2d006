// SPDX-License-Identifier: MIT
// Loading and storing a row in packs of V floats, for the multi-pass softmax lessons (2.07, 2.08):
// V = 4 is one 16-byte float4 access, V = 1 the scalar path for rows that are not 16-byte aligned.
#pragma once

#include <cuda_runtime.h>

// V consecutive floats: a float4 (one 16-byte load) for V = 4, a single float for V = 1.
template <int V>
struct Pack {
  float v[V];
};

// Pack i of a row, i.e. the floats row[V * i] .. row[V * i + V - 1]. With V = 4 the row must start
// on a 16-byte boundary (the launcher checks). __ldg reads through the read-only path, which keeps
// the line in L1: the next pass over the row finds it there.
template <int V>
__device__ Pack<V> load_pack(const float* row, int i) {
  Pack<V> p;
  if constexpr (V == 4) {
    const float4 f = __ldg(reinterpret_cast<const float4*>(row) + i);
    p.v[0] = f.x;
    p.v[1] = f.y;
    p.v[2] = f.z;
    p.v[3] = f.w;
  } else {
    p.v[0] = __ldg(row + i);
  }
  return p;
}

template <int V>
__device__ void store_pack(float* row, int i, const Pack<V>& p) {
  if constexpr (V == 4) {
    reinterpret_cast<float4*>(row)[i] = make_float4(p.v[0], p.v[1], p.v[2], p.v[3]);
  } else {
    row[i] = p.v[0];
  }
}
