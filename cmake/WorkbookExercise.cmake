# The exercises are facts in one file, cmake/exercises.json: {"exercises": [...]}, one object per
# exercise in course order, with named fields. Each phase's CMakeLists.txt registers its own with
# workbook_phase_exercises(<phase>), which calls workbook_exercise() with the entry's fields:
#   id, name       <id> <name> (required): 0.02 vector_add
#   title          TITLE: the text after the colon of the phase README's `### N.NN name: title` heading
#                  (the workbook tool's hint and Next lines); omitted where the heading has none
#   fails_with     FAILS_WITH (required)
#   smoke_args     SMOKE_ARGS, an array: ["--size", "1M", "--repeat", "3"]
#   libs           LIBS, an array of targets
#   test_libs      TEST_LIBS, an array of targets
#   lesson_main    LESSON_MAIN
#   sanitize       SANITIZE, an array: ["memcheck"], or ["none"]
#   requires_arch  REQUIRES_ARCH, a string: "80" or "90a"
#   timeout        TIMEOUT, a number of seconds: 90
#   source_check   SOURCE_CHECK
#   why            passed to nothing: why the entry has its special fields (JSON has no comments)
# An empty field is left out, never "" or []; an unknown one stops the configure, and so does an entry
# no phase registers (workbook_finalize). tools/check_manifest.py (CTest host.manifest) checks the
# entries against README.md's course map, the phase READMEs' headings and titles, and the Previous/Next
# lines of the exercise headers; tools/check_exercises.py (host.exercise-gate) that each exercise file
# has its entry. Adding an exercise = stub + solution + test + hints file + phase README section + one
# manifest entry (and its launcher in the phase header); `python3 tools/check_manifest.py --fix .` then
# writes README.md's course map and its neighbours' Previous/Next lines, and the phase benchmarks of
# phases 1-4 run its lesson on their shapes (common/lesson_bench.h).
#
# workbook_exercise(<id> <name> FAILS_WITH <text> [TITLE <text>] [SMOKE_ARGS <args...>] [LIBS <targets...>]
#                   [TEST_LIBS <targets...>] [LESSON_MAIN <target>] [SANITIZE <tools...> | none]
#                   [REQUIRES_ARCH 80|90a] [TIMEOUT <seconds>] [SOURCE_CHECK <script>])
# TITLE goes to the registry's `title` column only (lessons keep their own WB_LESSON titles).
# LIBS link to the exercise (and so to its lesson and test); TEST_LIBS to its graded test only;
# LESSON_MAIN replaces workbook_lesson_main as the lessons' main (phase 4's takes matrix options).
# SANITIZE overrides the compute-sanitizer tools of the learner's grade, which are otherwise read from
# the solution (_workbook_grade_sanitizers): e.g. SANITIZE memcheck for an exercise whose kernels
# are a library's. SANITIZE none: no sanitizer run at all, of the grade or of the solution, for an
# exercise with no kernel of its own whose libraries' kernels cannot run under a sanitizer (NCCL's
# kernels on several GPUs wait for each other, and the sanitizer serializes launches).
# REQUIRES_ARCH: the exercise needs more than sm_75 (common/arch_requirement.h). 80: its file compiles
# for the build's architectures from 80 up (80 when there are none); 90a: for sm_90a only (wgmma, TMA).
# Its lessons and tests then skip (exit 77) with one line on a GPU that cannot run it, and the
# registry's `requires` column tells the workbook tool (list, doctor, check).
# TIMEOUT: CTest's limit for its tests and lesson run instead of WORKBOOK_GPU_TEST_TIMEOUT (short for
# rungs whose bugs hang, e.g. mbarrier waits); `workbook check` runs the same tests through ctest, so
# under the same limit.
# SOURCE_CHECK: a script (relative to the source directory) that reads the exercise's file for what no
# run can see (tools/hopper_order_check.py: the order of asynchronous operations). Called as
# `python3 <script> <id> <file>`, exit 0 clean, 1 with the reason. Part of the learner's grade
# (N.NN.name.learner.source, which `workbook check` runs too); the solution must pass it
# (N.NN.name.source, host).
#
# Called by workbook_phase_exercises, once per manifest entry. For id 0.02 and name vector_add in
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
#          0.02.vector_add.pristine    [pristine gpu]  the untouched stub fails as intended
# `workbook check 0.02` runs the grade's tests (0.02.vector_add.learner and .learner.*) through ctest.
# FAILS_WITH is the text the pristine stub's test output must contain (tools/pristine_stubs.sh).
# Each .cu compiles once per variant into an OBJECT library that its lesson and its test share.
#
# The registry: workbook_finalize() writes build/<preset>/workbook_exercises.tsv, a header row of
# column names (WORKBOOK_REGISTRY_COLUMNS) and one row per exercise. Every reader finds a column by
# its name in the header (tools/workbook/manifest.cpp, tools/registry_columns.awk for the scripts,
# workbook_registry_field() here), so a column may be added anywhere; renaming one means its readers.

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

set(WORKBOOK_EXERCISE_MANIFEST ${CMAKE_CURRENT_LIST_DIR}/exercises.json)
# Editing the manifest reconfigures the build.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${WORKBOOK_EXERCISE_MANIFEST})
set_property(GLOBAL PROPERTY WORKBOOK_EXERCISE_ROWS "")
set_property(GLOBAL PROPERTY WORKBOOK_EXERCISE_IDS "")
# The registry's columns, in the order written (readers look them up by name).
set(WORKBOOK_REGISTRY_COLUMNS
  id name title stub solution learner_test learner_lesson fails_with smoke_args phase target solution_lesson
  solution_test hints readme bench_target bench sanitizers requires)

# workbook_registry_field(<row> <column> <out_var>): one column of a WORKBOOK_EXERCISE_ROWS row, by name.
function(workbook_registry_field row column out_var)
  list(FIND WORKBOOK_REGISTRY_COLUMNS ${column} index)
  if(index LESS 0)
    message(FATAL_ERROR "workbook_registry_field: the registry has no column '${column}'")
  endif()
  string(REPLACE "\t" ";" fields "${row}")
  list(GET fields ${index} value)
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

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
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "FAILS_WITH;TITLE;LESSON_MAIN;REQUIRES_ARCH;TIMEOUT;SOURCE_CHECK"
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
  # which link the solution objects and check each lesson's requirement, WB_EXERCISE_ARCH, themselves).
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
    # WB_LESSON registers these with the lesson (WB_EXERCISE_ARCH: REQUIRES_ARCH, "" for none), so a
    # phase benchmark that links the phase's objects knows each lesson's id and requirement.
    target_compile_definitions(${base}${suffix}_obj PRIVATE
      WB_EXERCISE_ID="${id}" WB_EXERCISE_NAME="${name}" WB_VARIANT="${variant}" WB_EXERCISE_ARCH="${ARG_REQUIRES_ARCH}")
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
    LABELS "solution;gpu;p${phase}" SKIP_RETURN_CODE 77 TIMEOUT ${test_timeout})
  # Judged by its exit status alone (0 only when every result line passed): a pass expression would make
  # CTest ignore it, and the usage text of a lesson given a bad --size says "0 PASS" too.

  # The learner's grade: these tools on the learner test, by ctest --preset learner and by
  # `workbook check` alike (both run the N.NN.name.learner.<tool> tests below).
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

  if(WORKBOOK_COMPUTE_SANITIZER AND NOT ARG_SANITIZE STREQUAL "none")
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

  # The grader can fail: on the untouched stub the learner test (and each of the grade's sanitizer runs)
  # fails with FAILS_WITH and the learner lesson with FAIL (tools/pristine_stubs.sh; skipped when the
  # stub is edited). Its runs have WB_PRISTINE_TIMEOUT (300) seconds each.
  set(sanitizer_argument "")
  if(WORKBOOK_COMPUTE_SANITIZER)
    set(sanitizer_argument ${WORKBOOK_COMPUTE_SANITIZER})
  endif()
  add_test(NAME ${id}.${name}.pristine COMMAND bash ${PROJECT_SOURCE_DIR}/tools/pristine_stubs.sh
    ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} --only ${id} ${sanitizer_argument})
  set_tests_properties(${id}.${name}.pristine PROPERTIES
    LABELS "pristine;gpu;p${phase}" SKIP_RETURN_CODE 77 TIMEOUT 1800)

  # One target that builds what the exercise's commands run: `cmake --build --preset default --target 0.02`
  # builds the lesson, its graded test and the reference lesson.
  add_custom_target(${id})
  add_dependencies(${id} ${base} ${base}_test ${base}_solution)

  if(ARG_SOURCE_CHECK)
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${ARG_SOURCE_CHECK})
      message(FATAL_ERROR "workbook_exercise(${id} ${name}): SOURCE_CHECK ${ARG_SOURCE_CHECK} does not exist")
    endif()
    # Registered with or without python3: without it the part of the grade reports that it did not run
    # (ctest: Not Run), so the grade never shrinks silently.
    set(python python3)
    if(Python3_FOUND)
      set(python ${Python3_EXECUTABLE})
    endif()
    add_test(NAME ${id}.${name}.learner.source COMMAND ${python} ${PROJECT_SOURCE_DIR}/${ARG_SOURCE_CHECK} ${id} ${stub})
    set_tests_properties(${id}.${name}.learner.source PROPERTIES LABELS "learner;learner-grade;p${phase}")
    add_test(NAME ${id}.${name}.source COMMAND ${python} ${PROJECT_SOURCE_DIR}/${ARG_SOURCE_CHECK} ${id} ${solution})
    set_tests_properties(${id}.${name}.source PROPERTIES LABELS "host;p${phase}")
  endif()

  # One row per exercise: the registry that tools/ reads (pristine check, workbook CLI), its columns
  # named by WORKBOOK_REGISTRY_COLUMNS.
  set(column_id ${id})
  set(column_name ${name})
  set(column_title "${ARG_TITLE}")
  file(RELATIVE_PATH column_stub ${PROJECT_SOURCE_DIR} ${stub})
  file(RELATIVE_PATH column_solution ${PROJECT_SOURCE_DIR} ${solution})
  set(column_learner_test $<TARGET_FILE:${base}_test>)
  set(column_learner_lesson $<TARGET_FILE:${base}>)
  set(column_fails_with "${ARG_FAILS_WITH}")
  string(REPLACE ";" " " column_smoke_args "${ARG_SMOKE_ARGS}")
  set(column_phase ${phase})
  set(column_target ${base})
  set(column_solution_lesson $<TARGET_FILE:${base}_solution>)
  set(column_solution_test $<TARGET_FILE:${base}_solution_test>)
  file(RELATIVE_PATH column_hints ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/hints/${file_name}.txt)
  file(RELATIVE_PATH column_readme ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/README.md)
  # The phase benchmark (workbook_solution_tool) may still be skipped later, so ask at generate time.
  get_property(column_bench_target GLOBAL PROPERTY WORKBOOK_PHASE${phase}_BENCH)
  set(column_bench "")
  if(column_bench_target)
    set(column_bench "$<$<TARGET_EXISTS:${column_bench_target}>:$<TARGET_FILE:${column_bench_target}>>")
  endif()
  # The grade's sanitizer tools, space-separated, or "none".
  string(REPLACE ";" " " column_sanitizers "${grade_tools}")
  if(column_sanitizers STREQUAL "")
    set(column_sanitizers none)
  endif()
  # What the GPU must be ("", 80, 90a). The time limit and the source check are CTest's (TIMEOUT, the
  # .learner.source test), which `workbook check` runs.
  set(column_requires "${ARG_REQUIRES_ARCH}")
  set(row "")
  foreach(column IN LISTS WORKBOOK_REGISTRY_COLUMNS)
    if(NOT column STREQUAL "id")
      string(APPEND row "\t")
    endif()
    string(APPEND row "${column_${column}}")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_EXERCISE_ROWS "${row}")
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_EXERCISE_IDS ${id})
  # The phase's exercises in manifest order, as NN_name: what its benchmark links by default.
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_PHASE${phase}_EXERCISES ${file_name})
endfunction()

# The workbook_exercise() arguments of one cmake/exercises.json entry (a JSON object): each field is
# the keyword of its name in capitals (smoke_args: SMOKE_ARGS), arrays spread into its values.
function(_workbook_manifest_arguments entry out_var)
  set(where "${WORKBOOK_EXERCISE_MANIFEST}")
  string(JSON id ERROR_VARIABLE id_error GET "${entry}" id)
  string(JSON name ERROR_VARIABLE name_error GET "${entry}" name)
  if(id_error OR name_error)
    message(FATAL_ERROR "${where}: an entry without an id or a name: ${entry}")
  endif()
  set(args ${id} ${name})
  string(JSON members LENGTH "${entry}")
  math(EXPR last "${members} - 1")
  foreach(m RANGE ${last})
    string(JSON key MEMBER "${entry}" ${m})
    string(JSON type TYPE "${entry}" ${key})
    set(values "")
    if(key MATCHES "^(id|name|why)$")
      continue()
    elseif(key MATCHES "^(title|fails_with|lesson_main|requires_arch|source_check)$" AND type STREQUAL "STRING")
      string(JSON values GET "${entry}" ${key})
    elseif(key STREQUAL "timeout" AND type STREQUAL "NUMBER")
      string(JSON values GET "${entry}" ${key})
    elseif(key MATCHES "^(smoke_args|libs|test_libs|sanitize)$" AND type STREQUAL "ARRAY")
      string(JSON count LENGTH "${entry}" ${key})
      if(count GREATER 0)
        math(EXPR last_value "${count} - 1")
        foreach(v RANGE ${last_value})
          string(JSON value_type TYPE "${entry}" ${key} ${v})
          string(JSON value GET "${entry}" ${key} ${v})
          if(NOT value_type STREQUAL "STRING" OR value STREQUAL "")
            message(FATAL_ERROR "${where}: ${id} ${name}: ${key} holds strings, got '${value}'")
          endif()
          list(APPEND values "${value}")
        endforeach()
      endif()
    elseif(key MATCHES "^(title|fails_with|lesson_main|requires_arch|source_check|timeout|smoke_args|libs|test_libs|sanitize)$")
      message(FATAL_ERROR "${where}: ${id} ${name}: ${key} is a ${type}; see cmake/WorkbookExercise.cmake for its type")
    else()
      message(FATAL_ERROR "${where}: ${id} ${name}: unknown field '${key}' (the fields are listed in cmake/WorkbookExercise.cmake)")
    endif()
    if(values STREQUAL "")
      message(FATAL_ERROR "${where}: ${id} ${name}: ${key} is empty; leave an empty field out")
    endif()
    if(values MATCHES ";" AND NOT type STREQUAL "ARRAY")
      message(FATAL_ERROR "${where}: ${id} ${name}: ${key} holds a ';', which CMake would split")
    endif()
    string(TOUPPER ${key} keyword)
    list(APPEND args ${keyword} "${values}")
  endforeach()
  set(${out_var} "${args}" PARENT_SCOPE)
endfunction()

# workbook_phase_exercises(<phase>): registers the exercises of cmake/exercises.json whose id starts
# with <phase>, in the manifest's order, with workbook_exercise(); their files live in the calling
# directory. Call it once from the phase's CMakeLists.txt, after its workbook_solution_tool() (the
# registry names the phase benchmark) and before anything that refers to the exercises' targets or tests.
function(workbook_phase_exercises phase)
  file(READ ${WORKBOOK_EXERCISE_MANIFEST} manifest)
  string(JSON count ERROR_VARIABLE error LENGTH "${manifest}" exercises)
  if(error)
    message(FATAL_ERROR "${WORKBOOK_EXERCISE_MANIFEST}: ${error}")
  endif()
  set(registered 0)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON entry GET "${manifest}" exercises ${i})
      string(JSON id ERROR_VARIABLE error GET "${entry}" id)
      if(NOT error AND id MATCHES "^${phase}\\.")
        _workbook_manifest_arguments("${entry}" args)
        workbook_exercise(${args})
        math(EXPR registered "${registered} + 1")
      endif()
    endforeach()
  endif()
  if(registered EQUAL 0)
    message(FATAL_ERROR "workbook_phase_exercises(${phase}): ${WORKBOOK_EXERCISE_MANIFEST} lists no exercise ${phase}.NN")
  endif()
endfunction()

# workbook_solution_tool(<target> <source> PHASE <n> [EXERCISES <NN_name...>] [LIBS <targets...>]
#                        [SMOKE_ARGS <args...>])
# A benchmark that links the reference solutions of a phase's exercises (p1_ladder, p2_bench): those
# EXERCISES names, or by default every exercise the manifest lists for the phase; each object registers
# its lesson, which the benchmark may run on its own shapes (common/lesson_bench.h). Call
# it before workbook_phase_exercises(<n>), whose registry rows name it (it defers itself to the end of
# the directory), and is skipped, with a status line, while an exercise is missing. Registers a short run labelled bench (not in the
# default test presets), which writes <target>_smoke.csv in the build directory.
function(workbook_solution_tool target source)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "PHASE" "EXERCISES;LIBS;SMOKE_ARGS")
  get_property(registered GLOBAL PROPERTY WORKBOOK_EXERCISE_IDS)
  foreach(id IN LISTS registered)
    if(id MATCHES "^${ARG_PHASE}\\.")
      message(FATAL_ERROR "workbook_solution_tool(${target}): call it before workbook_phase_exercises(${ARG_PHASE}), "
                          "whose registry rows name it (${id} is registered already)")
    endif()
  endforeach()
  # The phase's exercises name their benchmark in the registry (workbook bench).
  set_property(GLOBAL PROPERTY WORKBOOK_PHASE${ARG_PHASE}_BENCH ${target})
  # Deferred calls expand variables when they run, so bake the values in now.
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _workbook_add_solution_tool [[${target}]] [[${source}]] \
    [[${ARG_PHASE}]] [[${ARG_EXERCISES}]] [[${ARG_LIBS}]] [[${ARG_SMOKE_ARGS}]])")
endfunction()

function(_workbook_add_solution_tool target source phase exercises libs smoke)
  if(exercises STREQUAL "")
    get_property(exercises GLOBAL PROPERTY WORKBOOK_PHASE${phase}_EXERCISES)
  endif()
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

# Checks the manifest against what the phases registered, writes the exercise registry and registers the
# maintainer gate; call once, last.
function(workbook_finalize)
  # Every exercise of the manifest is registered, and nothing else is.
  file(READ ${WORKBOOK_EXERCISE_MANIFEST} manifest)
  string(JSON count LENGTH "${manifest}" exercises)
  set(listed "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON id GET "${manifest}" exercises ${i} id)
      list(APPEND listed ${id})
    endforeach()
  endif()
  get_property(registered GLOBAL PROPERTY WORKBOOK_EXERCISE_IDS)
  # A phase left out of this build (workbook_leave_out_phase: phase 6 without NCCL) registers nothing.
  get_property(left_out GLOBAL PROPERTY WORKBOOK_PHASES_LEFT_OUT)
  foreach(id IN LISTS listed)
    string(REGEX MATCH "^[0-9]" id_phase "${id}")
    if(id_phase IN_LIST left_out)
      continue()
    endif()
    if(NOT id IN_LIST registered)
      message(FATAL_ERROR "${WORKBOOK_EXERCISE_MANIFEST} lists ${id}, which no phase registers (its "
                          "CMakeLists.txt calls workbook_phase_exercises)")
    endif()
  endforeach()
  foreach(id IN LISTS registered)
    if(NOT id IN_LIST listed)
      message(FATAL_ERROR "exercise ${id} is registered but not in ${WORKBOOK_EXERCISE_MANIFEST}")
    endif()
  endforeach()

  get_property(rows GLOBAL PROPERTY WORKBOOK_EXERCISE_ROWS)
  string(REPLACE ";" "\t" text "${WORKBOOK_REGISTRY_COLUMNS}")
  string(APPEND text "\n")
  foreach(row IN LISTS rows)
    string(APPEND text "${row}\n")
  endforeach()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/workbook_exercises.tsv CONTENT "${text}")

  # The maintainer gate: stub/solution pairs, TODOs, tests, hints and README sections (no GPU needed).
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    add_test(NAME host.exercise-gate
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_exercises.py ${PROJECT_SOURCE_DIR})
    add_test(NAME host.exercise-gate-self-test
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_exercises.py --self-test)
    # The gate reads the exercise files as they are in the tree, so it fails on a learner's answered
    # files by design: label maintainer, outside the learner's default preset (tools/lint.sh and the gpu
    # preset run it).
    set_tests_properties(host.exercise-gate PROPERTIES LABELS "maintainer")
    set_tests_properties(host.exercise-gate-self-test PROPERTIES LABELS "host")
    # The manifest against the prose: README.md's course map, the phase READMEs' headings and titles,
    # the exercise headers' Previous/Next lines (with its own planted-defect self-test first).
    add_test(NAME host.manifest
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_manifest.py ${PROJECT_SOURCE_DIR})
    set_tests_properties(host.manifest PROPERTIES LABELS "host")
  else()
    message(WARNING "python3 not found: the exercise gate (tools/check_exercises.py, check_manifest.py) is not registered")
  endif()
endfunction()
