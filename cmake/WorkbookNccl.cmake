# NCCL for phase 6 (several GPUs): an imported target Workbook::nccl from the first of
#   WORKBOOK_NCCL_ROOT (include/nccl.h, lib/ or lib64/libnccl.so), when set;
#   the system's libnccl-dev: /usr/include/nccl.h and the multiarch folder (/usr/lib/x86_64-linux-gnu);
#   a copy beside the CUDA toolkit: its include/nccl.h and lib64/libnccl.so.
# Header and library are taken from the same place, so their versions agree. Where none has both, the
# phase is left out with one configure message (workbook_leave_out_phase), and the manifest's 6.NN
# entries are then skipped by workbook_finalize instead of stopping the configure.
set(WORKBOOK_NCCL_ROOT "" CACHE PATH "A folder with include/nccl.h and lib/ or lib64/libnccl.so (optional)")

function(_workbook_find_nccl)
  set(candidates "")
  if(WORKBOOK_NCCL_ROOT)
    list(APPEND candidates "${WORKBOOK_NCCL_ROOT}/include|${WORKBOOK_NCCL_ROOT}/lib"
         "${WORKBOOK_NCCL_ROOT}/include|${WORKBOOK_NCCL_ROOT}/lib64")
  endif()
  if(CMAKE_LIBRARY_ARCHITECTURE)
    list(APPEND candidates "/usr/include|/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
  endif()
  list(APPEND candidates "/usr/include|/usr/lib64")
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    list(APPEND candidates "${dir}|${CUDAToolkit_LIBRARY_DIR}")
  endforeach()
  foreach(candidate IN LISTS candidates)
    string(REPLACE "|" ";" pair "${candidate}")
    list(GET pair 0 include_dir)
    list(GET pair 1 lib_dir)
    if(EXISTS "${include_dir}/nccl.h" AND EXISTS "${lib_dir}/libnccl.so")
      file(STRINGS "${include_dir}/nccl.h" version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
      set(version "")
      foreach(part IN ITEMS MAJOR MINOR PATCH)
        foreach(line IN LISTS version_lines)
          if(line MATCHES "^#define NCCL_${part} ([0-9]+)")
            list(APPEND version ${CMAKE_MATCH_1})
          endif()
        endforeach()
      endforeach()
      string(REPLACE ";" "." version "${version}")
      add_library(Workbook::nccl SHARED IMPORTED GLOBAL)
      set_target_properties(Workbook::nccl PROPERTIES
        IMPORTED_LOCATION "${lib_dir}/libnccl.so"
        INTERFACE_INCLUDE_DIRECTORIES "${include_dir}")
      set(WORKBOOK_NCCL_VERSION "${version}" PARENT_SCOPE)
      message(STATUS "Workbook: NCCL ${version} (${include_dir}/nccl.h, ${lib_dir}/libnccl.so)")
      return()
    endif()
  endforeach()
endfunction()

if(NOT TARGET Workbook::nccl)
  _workbook_find_nccl()
endif()

# workbook_leave_out_phase(<phase> <why>): the phase's exercises are not built; workbook_finalize then
# accepts that the manifest lists them.
function(workbook_leave_out_phase phase why)
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_PHASES_LEFT_OUT ${phase})
  message(STATUS "Workbook: phase ${phase} left out: ${why}")
endfunction()
