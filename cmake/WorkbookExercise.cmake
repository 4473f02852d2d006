# workbook_exercise(<id> <name> FAILS_WITH <text> [SMOKE_ARGS <args...>] [LIBS <targets...>]
#                   [TEST_LIBS <targets...>] [LESSON_MAIN <target>] [SANITIZE <tools...> | none]
#                   [REQUIRES_ARCH 80|90a] [TIMEOUT <seconds>] [SOURCE_CHECK <script>])
# LIBS link to the exercise (and so to its lesson and test); TEST_LIBS to its graded test only;
# LESSON_MAIN replaces workbook_lesson_main as the lessons' main (phase 4's takes matrix options).
# SANITIZE overrides the compute-sanitizer tools of the learner's grade, which are otherwise read from
# the solution (_workbook_grade_sanitizers): e.g. SANITIZE memcheck for an exercise whose kernels
# are a library's.
# REQUIRES_ARCH: the exercise needs more than sm_75 (common/arch_requirement.h). 80: its file compiles
# for the build's architectures from 80 up (80 when there are none); 90a: for sm_90a only (wgmma, TMA).
# Its lessons and tests then skip (exit 77) with one line on a GPU that cannot run it, and the
# registry's `requires` column tells the workbook tool (list, doctor, check).
# TIMEOUT: CTest's limit for its tests and lesson run instead of WORKBOOK_GPU_TEST_TIMEOUT (short for
# rungs whose bugs hang, e.g. mbarrier waits); the registry's `test_timeout` column passes it on to
# `workbook check`.
# SOURCE_CHECK: a script (relative to the source directory) that reads the exercise's file for what no
# run can see (tools/hopper_order_check.py: the order of asynchronous operations). Called as
# `python3 <script> <id> <file>`, exit 0 clean, 1 with the reason. Part of the learner's grade
# (N.NN.name.learner.source, and `workbook check` via the registry's `source_check` column); the
# solution must pass it (N.NN.name.source, host).
#
# One call per exercise, from its phase's CMakeLists.txt. For id 0.02 and name vector_add in
# phase0_basics it expects phase0_basics/02_vector_add.cu, solutions/phase0_basics/02_vector_add.cu
# and phase0_basics/tests/02_vector_add_test.cpp, and creates:
#   p0_02_vector_add(_solution)        the lesson executables (learner / reference)
#   p0_02_vector_add(_solution)_test   the graded Catch2 tests linked against each
#   CTest: 0.02.vector_add.learner     [learner gpu]   run by the learner, fails on a pristine stub
#          0.02.vector_add.solution    [solution gpu]  must pass
#          0.02.vector_add.lesson      [solution gpu]  the reference lesson prints PASS
#          0.02.vector_add.<tool>      [sanitize gpu]  compute-sanitizer on the solution tests
#          0.02.vector_add.learner.<tool>  [learner learner-grade gpu]  the grade's sanitizer runs
#                                      on the learner test (memcheck, racecheck, synccheck as chosen)
# FAILS_WITH is the text the pristine stub's test output must contain (tools/pristine_stubs.sh).
# Each .cu compiles once per variant into an OBJECT library that its lesson and its test share.

set(WORKBOOK_GPU_TEST_TIMEOUT 300 CACHE STRING "Seconds before CTest kills a GPU test")
set(WORKBOOK_SANITIZE_TIMEOUT 900 CACHE STRING "Seconds before CTest kills a sanitizer run")
set(WORKBOOK_LEARNER_SANITIZE_TIMEOUT 120 CACHE STRING "Seconds before CTest kills a learner sanitizer run")
find_program(WORKBOOK_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR})
# Every sanitizer test goes through this script: the environment of the small case, racecheck's
# warnings counted as findings, and the planted-bug mode (--expect).
set(WORKBOOK_SANITIZE_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../tools/sanitize_test.sh)

# The compute-sanitizer tools of an exercise's grade, read once from its solution (comments
# stripped): memcheck (run with exact-size inputs) where it defines a kernel; racecheck and synccheck
# too where its threads share memory or step together as a warp (shared memory, shuffles, votes,
# __syncwarp, cooperative groups): those are the kernels whose missing barrier can pass a plain run.
function(_workbook_grade_sanitizers solution out_var)
  file(READ ${solution} text)
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  set(tools "")
  if(text MATCHES "__global__")
    list(APPEND tools memcheck)
    if(text MATCHES "__shared__|__shfl|__syncwarp|cooperative_groups|__ballot|__any_sync|__all_sync|__match_|__reduce_[a-z]+_sync")
      list(APPEND tools racecheck synccheck)
    endif()
  endif()
  set(${out_var} "${tools}" PARENT_SCOPE)
endfunction()

# compute-sanitizer <tool> on a test binary through the script; extra arguments go to the script.
function(_workbook_sanitize_command out_var tool binary)
  set(${out_var} bash ${WORKBOOK_SANITIZE_SCRIPT} ${ARGN} ${WORKBOOK_COMPUTE_SANITIZER} ${tool} ${binary} PARENT_SCOPE)
endfunction()

set_property(GLOBAL PROPERTY WORKBOOK_EXERCISE_ROWS "")

# The entries of CMAKE_CUDA_ARCHITECTURES from `minimum` up ("75;80;86-real" and 80 -> "80;86-real"),
# or `minimum` itself when none is (or for native/all/all-major, which cannot be filtered here: then
# `minimum` with its PTX, which the driver compiles for any newer GPU).
function(_workbook_architectures_from minimum out_var)
  set(kept "")
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(arch MATCHES "^([0-9]+)" AND CMAKE_MATCH_1 GREATER_EQUAL minimum)
      list(APPEND kept ${arch})
    endif()
  endforeach()
  if(NOT kept)
    set(kept ${minimum})
  endif()
  set(${out_var} "${kept}" PARENT_SCOPE)
endfunction()

# workbook_target_requires_arch(<target> 80|90a): compiles a target's CUDA sources only for what
# REQUIRES_ARCH names. 90a is no entry of CMAKE_CUDA_ARCHITECTURES that CMake 3.25 knows, so the
# property is turned off and the one -gencode given by hand (the -arch=sm_90a shorthand misbehaves
# with nvcc 13.0): SASS for sm_90a only, no PTX (sm_90a PTX runs nowhere else anyway).
function(workbook_target_requires_arch target arch)
  if(arch STREQUAL "90a")
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES OFF)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a>)
  elseif(arch STREQUAL "80")
    _workbook_architectures_from(80 archs)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${archs}")
  else()
    message(FATAL_ERROR "workbook_target_requires_arch(${target}): takes 80 or 90a, got '${arch}'")
  endif()
endfunction()

function(workbook_exercise id name)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "FAILS_WITH;LESSON_MAIN;REQUIRES_ARCH;TIMEOUT;SOURCE_CHECK"
                        "SMOKE_ARGS;LIBS;TEST_LIBS;SANITIZE")
  if(NOT ARG_LESSON_MAIN)
    set(ARG_LESSON_MAIN workbook_lesson_main)
  endif()
  if(ARG_REQUIRES_ARCH AND NOT ARG_REQUIRES_ARCH MATCHES "^(80|90a)$")
    message(FATAL_ERROR "workbook_exercise(${id} ${name}): REQUIRES_ARCH takes 80 or 90a, got '${ARG_REQUIRES_ARCH}'")
  endif()
  set(test_timeout ${WORKBOOK_GPU_TEST_TIMEOUT})
  if(ARG_TIMEOUT)
    if(NOT ARG_TIMEOUT MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "workbook_exercise(${id} ${name}): TIMEOUT takes seconds, got '${ARG_TIMEOUT}'")
    endif()
    set(test_timeout ${ARG_TIMEOUT})
  endif()
  if(NOT ARG_FAILS_WITH)
    message(FATAL_ERROR "workbook_exercise(${id} ${name}): FAILS_WITH is required (the stub's expected failure text)")
  endif()
  if(NOT id MATCHES "^([0-9])\\.([0-9][0-9])$")
    message(FATAL_ERROR "workbook_exercise: id '${id}' must look like P.NN (e.g. 0.02)")
  endif()
  set(phase ${CMAKE_MATCH_1})
  set(number ${CMAKE_MATCH_2})
  get_filename_component(phase_dir ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(file_name ${number}_${name})
  set(stub ${CMAKE_CURRENT_SOURCE_DIR}/${file_name}.cu)
  set(solution ${PROJECT_SOURCE_DIR}/solutions/${phase_dir}/${file_name}.cu)
  set(test_source ${CMAKE_CURRENT_SOURCE_DIR}/tests/${file_name}_test.cpp)
  foreach(f IN ITEMS ${stub} ${solution} ${test_source})
    if(NOT EXISTS ${f})
      message(FATAL_ERROR "workbook_exercise(${id} ${name}): missing ${f}")
    endif()
  endforeach()

  set(base p${phase}_${file_name})
  # The graded test file is compiled once and linked against both variants.
  add_library(${base}_test_obj OBJECT ${test_source})
  target_link_libraries(${base}_test_obj PRIVATE workbook_testing ${ARG_TEST_LIBS})

  # The requirement, registered in the lessons and tests of both variants (not in phase benchmarks,
  # which link the solution objects and check each rung themselves).
  set(requirement_objects "")
  if(ARG_REQUIRES_ARCH)
    add_library(${base}_requires OBJECT ${PROJECT_SOURCE_DIR}/common/arch_requirement_registration.cpp)
    target_link_libraries(${base}_requires PRIVATE workbook_common)
    target_compile_definitions(${base}_requires PRIVATE
      WB_EXERCISE_ID="${id}" WB_EXERCISE_NAME="${name}" WB_REQUIRES_ARCH="${ARG_REQUIRES_ARCH}")
    set(requirement_objects $<TARGET_OBJECTS:${base}_requires>)
  endif()

  foreach(variant IN ITEMS learner solution)
    if(variant STREQUAL "learner")
      set(source ${stub})
      set(suffix "")
    else()
      set(source ${solution})
      set(suffix _solution)
    endif()
    add_library(${base}${suffix}_obj OBJECT ${source})
    target_link_libraries(${base}${suffix}_obj PUBLIC workbook_common ${ARG_LIBS})
    target_compile_definitions(${base}${suffix}_obj PRIVATE
      WB_EXERCISE_ID="${id}" WB_EXERCISE_NAME="${name}" WB_VARIANT="${variant}")
    if(ARG_REQUIRES_ARCH)
      workbook_target_requires_arch(${base}${suffix}_obj ${ARG_REQUIRES_ARCH})
    endif()

    add_executable(${base}${suffix} $<TARGET_OBJECTS:${base}${suffix}_obj> ${requirement_objects})
    target_link_libraries(${base}${suffix} PRIVATE ${base}${suffix}_obj ${ARG_LESSON_MAIN})

    add_executable(${base}${suffix}_test
      $<TARGET_OBJECTS:${base}${suffix}_obj> $<TARGET_OBJECTS:${base}_test_obj> ${requirement_objects})
    target_link_libraries(${base}${suffix}_test PRIVATE ${base}${suffix}_obj workbook_test_main_gpu ${ARG_TEST_LIBS})

    add_test(NAME ${id}.${name}.${variant} COMMAND ${base}${suffix}_test)
    set_tests_properties(${id}.${name}.${variant} PROPERTIES
      LABELS "${variant};gpu;p${phase}" SKIP_RETURN_CODE 77 TIMEOUT ${test_timeout})
  endforeach()

  add_test(NAME ${id}.${name}.lesson COMMAND ${base}_solution ${ARG_SMOKE_ARGS})
  set_tests_properties(${id}.${name}.lesson PROPERTIES
    LABELS "solution;gpu;p${phase}" SKIP_RETURN_CODE 77 TIMEOUT ${test_timeout}
    PASS_REGULAR_EXPRESSION " PASS")

  # The learner's grade: these tools on the learner test, by ctest --preset learner and by
  # `workbook check` alike (the registry's last column).
  if(ARG_SANITIZE STREQUAL "none")
    set(grade_tools "")
  elseif(ARG_SANITIZE)
    set(grade_tools ${ARG_SANITIZE})
    foreach(tool IN LISTS grade_tools)
      if(NOT tool MATCHES "^(memcheck|racecheck|synccheck)$")
        message(FATAL_ERROR "workbook_exercise(${id} ${name}): SANITIZE takes memcheck, racecheck, synccheck or none, got '${tool}'")
      endif()
    endforeach()
  else()
    _workbook_grade_sanitizers(${solution} grade_tools)
  endif()

  if(WORKBOOK_COMPUTE_SANITIZER)
    # The solution must be clean under every tool (initcheck too), on the same small case.
    foreach(tool IN ITEMS memcheck racecheck synccheck initcheck)
      _workbook_sanitize_command(command ${tool} $<TARGET_FILE:${base}_solution_test>)
      add_test(NAME ${id}.${name}.${tool} COMMAND ${command})
      set_tests_properties(${id}.${name}.${tool} PROPERTIES
        LABELS "sanitize;gpu;p${phase}" SKIP_RETURN_CODE 77 TIMEOUT ${WORKBOOK_SANITIZE_TIMEOUT})
    endforeach()
  endif()
  # The grade's runs exist with or without compute-sanitizer: without it each one fails and says that
  # this part of the grade did not run (tools/sanitize_test.sh), so the grade never shrinks silently.
  # No label containing `sanitize`: the gpu preset runs that label on solutions (ctest -L takes a
  # regex, so even `learner-sanitize` would match), and the learner tests fail on the stubs by design.
  foreach(tool IN LISTS grade_tools)
    _workbook_sanitize_command(command ${tool} $<TARGET_FILE:${base}_test>)
    add_test(NAME ${id}.${name}.learner.${tool} COMMAND ${command})
    set_tests_properties(${id}.${name}.learner.${tool} PROPERTIES
      LABELS "learner;learner-grade;gpu;p${phase}" SKIP_RETURN_CODE 77
      TIMEOUT ${WORKBOOK_LEARNER_SANITIZE_TIMEOUT})
  endforeach()

  # One target that builds what the exercise's commands run: `cmake --build --preset default --target 0.02`
  # builds the lesson, its graded test and the reference lesson.
  add_custom_target(${id})
  add_dependencies(${id} ${base} ${base}_test ${base}_solution)

  if(ARG_SOURCE_CHECK)
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${ARG_SOURCE_CHECK})
      message(FATAL_ERROR "workbook_exercise(${id} ${name}): SOURCE_CHECK ${ARG_SOURCE_CHECK} does not exist")
    endif()
    if(Python3_FOUND)
      add_test(NAME ${id}.${name}.learner.source
        COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/${ARG_SOURCE_CHECK} ${id} ${stub})
      set_tests_properties(${id}.${name}.learner.source PROPERTIES LABELS "learner;learner-grade;p${phase}")
      add_test(NAME ${id}.${name}.source
        COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/${ARG_SOURCE_CHECK} ${id} ${solution})
      set_tests_properties(${id}.${name}.source PROPERTIES LABELS "host;p${phase}")
    endif()
  endif()

  # One row per exercise: the registry that tools/ reads (pristine check, workbook CLI).
  string(REPLACE ";" " " smoke "${ARG_SMOKE_ARGS}")
  file(RELATIVE_PATH rel_stub ${PROJECT_SOURCE_DIR} ${stub})
  file(RELATIVE_PATH rel_solution ${PROJECT_SOURCE_DIR} ${solution})
  # Columns are only ever appended: tools/pristine_stubs.sh reads the first 8 by position, the
  # workbook tool all of them.
  file(RELATIVE_PATH rel_hints ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/hints/${file_name}.txt)
  file(RELATIVE_PATH rel_readme ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/README.md)
  # The phase benchmark (workbook_solution_tool) may still be skipped later, so ask at generate time.
  get_property(bench GLOBAL PROPERTY WORKBOOK_PHASE${phase}_BENCH)
  set(bench_file "")
  if(bench)
    set(bench_file "$<$<TARGET_EXISTS:${bench}>:$<TARGET_FILE:${bench}>>")
  endif()
  # The grade's sanitizer tools, space-separated, or "none".
  string(REPLACE ";" " " sanitizers "${grade_tools}")
  if(sanitizers STREQUAL "")
    set(sanitizers none)
  endif()
  # Then what the GPU must be ("", 80, 90a) and the graded test's own time limit in seconds (TIMEOUT,
  # or empty: the tool's default).
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_EXERCISE_ROWS
    "${id}\t${name}\t${rel_stub}\t${rel_solution}\t$<TARGET_FILE:${base}_test>\t$<TARGET_FILE:${base}>\t${ARG_FAILS_WITH}\t${smoke}\t${phase}\t${base}\t$<TARGET_FILE:${base}_solution>\t$<TARGET_FILE:${base}_solution_test>\t${rel_hints}\t${rel_readme}\t${bench}\t${bench_file}\t${sanitizers}\t${ARG_REQUIRES_ARCH}\t${ARG_TIMEOUT}\t${ARG_SOURCE_CHECK}")
endfunction()

# workbook_solution_tool(<target> <source> PHASE <n> EXERCISES <NN_name...> [LIBS <targets...>]
#                        [SMOKE_ARGS <args...>])
# A benchmark that links the reference solutions of a phase's exercises (p1_ladder, p2_bench). Call
# it before the exercise lines: it defers itself to the end of the directory, and is skipped, with a
# status line, while an exercise is missing. Registers a short run labelled bench (not in the
# default test presets), which writes <target>_smoke.csv in the build directory.
function(workbook_solution_tool target source)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "PHASE" "EXERCISES;LIBS;SMOKE_ARGS")
  # The phase's exercises name their benchmark in the registry (workbook bench).
  set_property(GLOBAL PROPERTY WORKBOOK_PHASE${ARG_PHASE}_BENCH ${target})
  # Deferred calls expand variables when they run, so bake the values in now.
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _workbook_add_solution_tool [[${target}]] [[${source}]] \
    [[${ARG_PHASE}]] [[${ARG_EXERCISES}]] [[${ARG_LIBS}]] [[${ARG_SMOKE_ARGS}]])")
endfunction()

function(_workbook_add_solution_tool target source phase exercises libs smoke)
  set(objects "")
  foreach(exercise IN LISTS exercises)
    if(NOT TARGET p${phase}_${exercise}_solution_obj)
      message(STATUS "Workbook: ${target} not built: exercise ${exercise} is not registered")
      return()
    endif()
    list(APPEND objects $<TARGET_OBJECTS:p${phase}_${exercise}_solution_obj>)
  endforeach()
  add_executable(${target} ${source} ${objects})
  target_link_libraries(${target} PRIVATE ${libs})
  add_test(NAME ${target}.smoke COMMAND ${target} ${smoke} --out ${CMAKE_CURRENT_BINARY_DIR}/${target}_smoke.csv)
  set_tests_properties(${target}.smoke PROPERTIES LABELS "bench;gpu;p${phase}" SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# workbook_sanitizer_catches(<test name> TARGET <self-test exe> TOOL <tool> CASE <catch filter>
#                            EXPECT <regex> PHASE <n>)
# The grade's sanitizer runs must catch what plain runs cannot: runs <tool> on the grader self-test
# filtered to one planted case and passes only when the tool reports a finding matching EXPECT
# (e.g. "Race reported", "Invalid __global__ read"). Labelled like the self-tests (gpu grader pN).
function(workbook_sanitizer_catches test_name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "TARGET;TOOL;CASE;EXPECT;PHASE" "")
  if(NOT WORKBOOK_COMPUTE_SANITIZER)
    return()
  endif()
  _workbook_sanitize_command(command ${ARG_TOOL} $<TARGET_FILE:${ARG_TARGET}> --expect ${ARG_EXPECT})
  add_test(NAME ${test_name} COMMAND ${command} ${ARG_CASE})
  set_tests_properties(${test_name} PROPERTIES
    LABELS "gpu;grader;p${ARG_PHASE}" SKIP_RETURN_CODE 77 TIMEOUT ${WORKBOOK_LEARNER_SANITIZE_TIMEOUT})
endfunction()

# workbook_grader_selftest(<phase> LIBS <targets...> [PLANTED_SANITIZER_BUGS] [SOURCES_90A <files...>])
# The grader's own test, from the phase's tests/grader_selftest.cpp and tests/wrong_kernels.cu:
# pN_grader_selftest, CTest gpu.pN.grader (planted bugs must fail with their diagnosis, a correct
# kernel must pass). PLANTED_SANITIZER_BUGS: its [planted-race] and [planted-overread] cases fool the
# plain grader on purpose, and gpu.pN.sanitizer-race / -overread prove the grade's racecheck and
# exact-input memcheck catch them. SOURCES_90A: more planted kernels, compiled for sm_90a only
# (wgmma, TMA: phase 1's Hopper bugs); the self-test runs them only on a Hopper GPU.
function(workbook_grader_selftest phase)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PLANTED_SANITIZER_BUGS" "" "LIBS;SOURCES_90A")
  set(target p${phase}_grader_selftest)
  add_executable(${target} tests/grader_selftest.cpp tests/wrong_kernels.cu)
  if(ARG_SOURCES_90A)
    add_library(${target}_sm90a OBJECT ${ARG_SOURCES_90A})
    target_link_libraries(${target}_sm90a PRIVATE ${ARG_LIBS})
    workbook_target_requires_arch(${target}_sm90a 90a)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${target}_sm90a>)
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_LIBS} workbook_test_main_gpu)
  add_test(NAME gpu.p${phase}.grader COMMAND ${target})
  set_tests_properties(gpu.p${phase}.grader PROPERTIES LABELS "gpu;grader;p${phase}" SKIP_RETURN_CODE 77)
  if(ARG_PLANTED_SANITIZER_BUGS)
    workbook_sanitizer_catches(gpu.p${phase}.sanitizer-race TARGET ${target} TOOL racecheck CASE [planted-race]
      EXPECT "Race reported" PHASE ${phase})
    workbook_sanitizer_catches(gpu.p${phase}.sanitizer-overread TARGET ${target} TOOL memcheck
      CASE [planted-overread] EXPECT "Invalid __global__ read" PHASE ${phase})
  endif()
endfunction()

# Writes the exercise registry and registers the pristine-stub check; call once, last.
function(workbook_finalize)
  get_property(rows GLOBAL PROPERTY WORKBOOK_EXERCISE_ROWS)
  set(text "# id\tname\tstub\tsolution\tlearner_test\tlearner_lesson\tfails_with\tsmoke_args\tphase\ttarget")
  string(APPEND text "\tsolution_lesson\tsolution_test\thints\treadme\tbench_target\tbench\tsanitizers\trequires\ttest_timeout\tsource_check\n")
  foreach(row IN LISTS rows)
    string(APPEND text "${row}\n")
  endforeach()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/workbook_exercises.tsv CONTENT "${text}")
  add_test(NAME pristine-stubs
    COMMAND bash ${PROJECT_SOURCE_DIR}/tools/pristine_stubs.sh
            ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${WORKBOOK_COMPUTE_SANITIZER})
  set_tests_properties(pristine-stubs PROPERTIES
    LABELS "gpu;pristine" SKIP_RETURN_CODE 77 TIMEOUT 1800)

  # The maintainer gate: stub/solution pairs, TODOs, tests, hints and README sections (no GPU needed).
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    add_test(NAME host.exercise-gate
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_exercises.py ${PROJECT_SOURCE_DIR})
    add_test(NAME host.exercise-gate-self-test
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_exercises.py --self-test)
    set_tests_properties(host.exercise-gate host.exercise-gate-self-test PROPERTIES LABELS "host")
  else()
    message(WARNING "python3 not found: the exercise gate (tools/check_exercises.py) is not registered")
  endif()
endfunction()
