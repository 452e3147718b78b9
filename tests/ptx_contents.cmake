# Each step's PTX holds the instructions that define it and none that belong to later steps.
function(expect_ptx step)
  cmake_parse_arguments(X "" "" "HAS;LACKS" ${ARGN})
  set(file ${PTX_DIR}/${step}.ptx)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "missing ${file} (build the ptx target)")
  endif()
  file(READ ${file} ptx)
  foreach(s ${X_HAS})
    string(FIND "${ptx}" "${s}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${step}.ptx lacks '${s}'")
    endif()
  endforeach()
  foreach(s ${X_LACKS})
    string(FIND "${ptx}" "${s}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${step}.ptx must not contain '${s}'")
    endif()
  endforeach()
endfunction()

foreach(s h01 h02 h03)
  expect_ptx(${s} HAS "wgmma.mma_async" "wgmma.commit_group" "wgmma.wait_group" "fence.proxy.async"
                  LACKS "cp.async.bulk.tensor" "tcgen05")
endforeach()

# h04+: operands arrive by TMA; the wgmma path stays.
foreach(s h04 h05 h06 h07 h08 h-cooperative h-pingpong h-small_m)
  expect_ptx(${s} HAS "cp.async.bulk.tensor.2d" "mbarrier.try_wait.parity" "wgmma.mma_async" LACKS "tcgen05")
endforeach()
expect_ptx(h05 HAS "wgmma.wait_group.sync.aligned 1")
expect_ptx(h07 HAS "setmaxnreg.dec.sync.aligned.u32 40" "setmaxnreg.inc.sync.aligned.u32 232" "m64n256k16")

# b01-b03 (sm_100a, compiled, not run): TMEM allocated and freed, tcgen05.mma committed to an mbarrier, the
# accumulator read back with tcgen05.ld + wait::ld; operands copied by threads (no TMA), no Hopper wgmma.
foreach(s b01 b02 b03)
  expect_ptx(${s} HAS "tcgen05.alloc.cta_group::1" "tcgen05.relinquish_alloc_permit" "tcgen05.mma.cta_group::1.kind::f16"
                  "tcgen05.commit.cta_group::1" "tcgen05.ld.sync.aligned.32x32b" "tcgen05.wait::ld"
                  "tcgen05.dealloc.cta_group::1" "elect.sync" "fence.proxy.async.shared::cta" "mbarrier.try_wait.parity"
                  LACKS "cp.async.bulk.tensor" "wgmma" "cta_group::2")
endforeach()

# b04+ (sm_100a, compiled, not run): operands arrive by TMA into SW128 SMEM, armed with expect_tx.
foreach(s b04 b05 b06 b07)
  expect_ptx(${s} HAS "cp.async.bulk.tensor.2d" "mbarrier.arrive.expect_tx" "tcgen05.mma.cta_group::1.kind::f16"
                  "tcgen05.commit.cta_group::1" "tcgen05.ld.sync.aligned.32x32b" "tcgen05.dealloc.cta_group::1"
                  LACKS "wgmma" "cta_group::2")
endforeach()

# b08+ (sm_100a, compiled, not run): a CTA pair — every tcgen05 instruction is cta_group::2 (never mixed
# with ::1), both CTAs' TMA loads signal the leader's barrier (mapa), commits multicast to the pair.
foreach(s b08 b09 b10)
  expect_ptx(${s} HAS "tcgen05.alloc.cta_group::2" "tcgen05.mma.cta_group::2.kind::f16"
                  "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster"
                  "tcgen05.dealloc.cta_group::2" "mbarrier::complete_tx::bytes.cta_group::2" "mapa.shared::cluster"
                  "barrier.cluster" "tcgen05.ld.sync.aligned.32x32b"
                  LACKS "cta_group::1" "wgmma")
endforeach()
# b09 writes back straight from registers; b10's change is the writeback through SMEM and TMA stores, two
# staging buffers per epilogue warpgroup (bulk groups).
expect_ptx(b09 LACKS "cp.async.bulk.tensor.2d.global.shared::cta" "cp.async.bulk.wait_group.read")
expect_ptx(b10 HAS "cp.async.bulk.tensor.2d.global.shared::cta" "cp.async.bulk.commit_group"
                "cp.async.bulk.wait_group.read" "fence.proxy.async.shared::cta")

# The instruction descriptor every tcgen05.mma of a b-step takes (a register set by mov.b32 from a constant):
# the (M, N) configurations that tests/test_cute_descriptors.cu checks bit for bit against CuTe.
function(expect_idesc step value)
  file(READ ${PTX_DIR}/${step}.ptx ptx)
  string(REGEX MATCHALL "tcgen05\\.mma\\.[^\n;]*, %r[0-9]+, [^\n,;]*" mmas "${ptx}")  # (no ';': a list)
  if(NOT mmas)
    message(FATAL_ERROR "${step}.ptx has no tcgen05.mma")
  endif()
  foreach(mma ${mmas})
    string(REGEX MATCH ", (%r[0-9]+), [^,]*$" _ "${mma}")
    string(FIND "${ptx}" "mov.b32 \t${CMAKE_MATCH_1}, ${value};" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${step}.ptx: '${mma}' does not take the instruction descriptor ${value}")
    endif()
  endforeach()
endfunction()
foreach(s b01 b02 b03 b04 b05 b06 b07)
  expect_idesc(${s} 136314896)  # 0x08200010: M=128, N=128, f16 x f16 -> f32, K-major
endforeach()
expect_idesc(b08 272629776)     # 0x10400010: M=256 (cta_group::2), N=256
expect_idesc(b09 272629776)
expect_idesc(b10 270532624)     # 0x10200010: M=256 (cta_group::2), N=128

# TMEM columns each b-step allocates (tcgen05.alloc reads them from a register set just before it):
# 128 for one 128x128 accumulator; 256 for the pair's 128x256 (b08); 512 for two consumers (b09: 2 x 256) and
# for two consumers with two accumulator stages each (b10: 2 x 2 x 128).
function(expect_tmem_columns step cols)
  file(READ ${PTX_DIR}/${step}.ptx ptx)
  string(REGEX MATCH "tcgen05\\.alloc[^\n]*, (%r[0-9]+);" alloc "${ptx}")
  if(NOT alloc)
    message(FATAL_ERROR "${step}.ptx has no tcgen05.alloc")
  endif()
  string(FIND "${ptx}" "mov.b32 \t${CMAKE_MATCH_1}, ${cols};" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${step}.ptx: tcgen05.alloc does not take ${cols} columns")
  endif()
endfunction()
foreach(s b01 b02 b03 b04 b05 b06 b07)
  expect_tmem_columns(${s} 128)
endforeach()
expect_tmem_columns(b08 256)
expect_tmem_columns(b09 512)
expect_tmem_columns(b10 512)
expect_ptx(h08 HAS "multicast::cluster" "mapa.shared::cluster" "mbarrier.arrive.shared::cluster" "barrier.cluster")
# h09–h13 call their kernel families (src/hopper/families.hpp), compiled once each: the kernels are in the
# families' PTX, and the step files hold none.
foreach(s h09 h10 h11 h12 h13)
  expect_ptx(${s} LACKS ".entry")
endforeach()
# The cooperative family (h09, h11, best): 2×1 cluster multicast, the TMA-store writeback (h09: stmatrix, TMA
# stores in bulk groups), stream-K's flags (h11: release store, acquire load), 128×256 and 128×192 tiles in fp16
# and bf16, the warp-specialized register budgets, programmatic dependent launch (best's launches).
expect_ptx(h-cooperative HAS "griddepcontrol.wait" "griddepcontrol.launch_dependents" "multicast::cluster" "stmatrix.sync.aligned.m8n8.x4" "cp.async.bulk.tensor.2d.global.shared::cta"
               "cp.async.bulk.commit_group" "st.release.gpu" "ld.acquire.gpu" "m64n256k16.f32.f16.f16"
               "m64n256k16.f32.bf16.bf16" "m64n192k16.f32.f16.f16" "setmaxnreg.dec.sync.aligned.u32 40"
               "setmaxnreg.inc.sync.aligned.u32 232")
# The ping-pong family (h10, best): the consumers hand the ring over (turn_bar), 128×128 and 128×64 tiles,
# programmatic dependent launch (best's launches).
expect_ptx(h-pingpong HAS "griddepcontrol.wait" "griddepcontrol.launch_dependents" "multicast::cluster" "stmatrix.sync.aligned.m8n8.x4" "cp.async.bulk.commit_group"
               "m64n128k16.f32.f16.f16" "m64n64k16.f32.bf16.bf16" LACKS "st.release.gpu")
# The small-M family (h12, h13, best): tokens on wgmma's N side (n8 … n128; no 256-token tile since 2026-12-01),
# the cluster's partial tiles read through distributed SMEM, programmatic dependent launch.
expect_ptx(h-small_m HAS "m64n8k16.f32.f16.f16" "m64n16k16.f32.bf16.bf16" "m64n32k16" "m64n64k16" "m64n128k16"
               "griddepcontrol.wait" "griddepcontrol.launch_dependents" "mapa" "barrier.cluster"
               LACKS "m64n256k16" "stmatrix" "setmaxnreg")
# best itself only pads rows (16-byte stores); its kernels are the families'.
expect_ptx(h-best HAS ".entry" "st.global.v4" LACKS "wgmma")
