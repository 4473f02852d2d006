# Chooses CMAKE_CUDA_ARCHITECTURES when neither a preset nor the user set it: the visible GPU's
# compute capability, else WORKBOOK_NO_GPU_ARCHITECTURES (one architecture, 75: the quickest build
# that compiles every exercise, and whose PTX the driver compiles for any newer GPU). Rungs that
# need more (1.09, 1.10, 5.05: sm_80; 1.11-1.14: sm_90a) compile for what they need on their own
# (cmake/WorkbookExercise.cmake, REQUIRES_ARCH).
# A choice made without a GPU is remembered as such: a later configure that sees a GPU replaces it.
# The CUDAARCHS environment variable (CMake's own default for CMAKE_CUDA_ARCHITECTURES) and
# -DCMAKE_CUDA_ARCHITECTURES=... win over all of this.
set(WORKBOOK_NO_GPU_ARCHITECTURES 75 CACHE STRING "GPU architectures to build for when no GPU is visible")
if(DEFINED ENV{CUDAARCHS})
  return()
endif()
# WORKBOOK_ARCHITECTURES_GUESSED holds the list chosen without a GPU, as long as nobody changed it.
if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${WORKBOOK_ARCHITECTURES_GUESSED}")
  return()
endif()
find_program(WORKBOOK_NVIDIA_SMI nvidia-smi)
set(_wb_arch "")
if(WORKBOOK_NVIDIA_SMI)
  execute_process(COMMAND ${WORKBOOK_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE _wb_caps RESULT_VARIABLE _wb_rc ERROR_QUIET TIMEOUT 20)
  if(_wb_rc EQUAL 0)
    string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _wb_caps "${_wb_caps}")
    foreach(_cap IN LISTS _wb_caps)
      string(REPLACE "." "" _cap "${_cap}")
      list(APPEND _wb_arch ${_cap})
    endforeach()
    list(REMOVE_DUPLICATES _wb_arch)
  endif()
endif()
if(_wb_arch)
  message(STATUS "Workbook: building for the visible GPU(s): sm_${_wb_arch}")
  set(CMAKE_CUDA_ARCHITECTURES "${_wb_arch}" CACHE STRING "GPU architectures to build for" FORCE)
  set(WORKBOOK_ARCHITECTURES_GUESSED "" CACHE INTERNAL "")
else()
  message(STATUS "Workbook: no GPU visible, building for sm_${WORKBOOK_NO_GPU_ARCHITECTURES} "
                 "(runs on any GPU of compute capability 7.5 or newer; a configure that sees a GPU "
                 "builds for it instead; -DWORKBOOK_NO_GPU_ARCHITECTURES=\"75;90\" or "
                 "-DCMAKE_CUDA_ARCHITECTURES=86 choose others)")
  set(CMAKE_CUDA_ARCHITECTURES "${WORKBOOK_NO_GPU_ARCHITECTURES}" CACHE STRING "GPU architectures to build for" FORCE)
  set(WORKBOOK_ARCHITECTURES_GUESSED "${WORKBOOK_NO_GPU_ARCHITECTURES}" CACHE INTERNAL "chosen without a GPU")
endif()
