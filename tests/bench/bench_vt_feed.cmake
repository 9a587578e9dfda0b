# tests/bench/bench_vt_feed.cmake: the ptyhost terminal model's feed
# benchmark (included by tests/bench/CMakeLists.txt).
find_package(benchmark REQUIRED)
add_executable(bench_vt_feed ${CMAKE_CURRENT_LIST_DIR}/bench_vt_feed.cpp)
target_link_libraries(bench_vt_feed PRIVATE signaltty_ptyhost_test_support benchmark::benchmark)
add_test(NAME bench_vt_feed COMMAND bench_vt_feed)
set_tests_properties(bench_vt_feed PROPERTIES LABELS bench TIMEOUT 600)
