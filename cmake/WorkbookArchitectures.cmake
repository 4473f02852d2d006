# Chooses CMAKE_CUDA_ARCHITECTURES when neither a preset nor the user set it:
# the visible GPU's compute capability, else a list from Turing (7.5) to Hopper (9.0).
# The CUDAARCHS environment variable (CMake's own default for CMAKE_CUDA_ARCHITECTURES) wins over
# the detection: CI runs the default preset with CUDAARCHS=90.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
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
else()
  set(_wb_arch 75 80 86 89 90)
  message(STATUS "Workbook: no GPU visible, building for ${_wb_arch} (a preset or -DCMAKE_CUDA_ARCHITECTURES narrows this)")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_wb_arch}" CACHE STRING "GPU architectures to build for")
