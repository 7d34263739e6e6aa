// A shared library that is not a migrate-pipeline plugin: the host must refuse it.
extern "C" __attribute__((visibility("default"))) int some_function() {
  return 42;
}
