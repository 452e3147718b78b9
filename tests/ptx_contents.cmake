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
foreach(s h04 h05 h06 h07 h08 h09)
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
expect_ptx(h08 HAS "multicast::cluster" "mapa.shared::cluster" "mbarrier.arrive.shared::cluster" "barrier.cluster")
expect_ptx(h09 HAS "multicast::cluster" "stmatrix.sync.aligned.m8n8.x4" "cp.async.bulk.tensor.2d.global.shared::cta"
               "cp.async.bulk.commit_group")
