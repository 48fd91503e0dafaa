/* The C API from C: vector add from a package on the default device, against the host sum,
 * with fresh random inputs and a poisoned output; then the errors a C caller gets (bad
 * arguments, a wrong argument dtype, an unknown kernel, a missing file).
 *   tessera-c-api-test PACKAGE   (a vector_add package, e.g. 01_vector_add --write-package) */
#include "tessera/tessera.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(cond, ...)                                                                                   \
  do {                                                                                                     \
    if (!(cond)) {                                                                                         \
      fprintf(stderr, "c_api_test:%d: %s failed: ", __LINE__, #cond);                                      \
      fprintf(stderr, __VA_ARGS__);                                                                        \
      fprintf(stderr, "\n");                                                                               \
      return 1;                                                                                            \
    }                                                                                                      \
  } while (0)

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: tessera-c-api-test PACKAGE");
  CHECK(tessera_api_version() == TESSERA_C_API_VERSION, "library %u, header %d", tessera_api_version(), TESSERA_C_API_VERSION);

  tessera_runtime *rt = NULL;
  CHECK(tessera_runtime_create(&rt) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_device_count(rt) > 0, "no device: %s", tessera_last_error());
  printf("devices: %zu, first: %s\n", tessera_device_count(rt), tessera_device_name(rt, 0));
  CHECK(strcmp(tessera_device_name(rt, 1000), "") == 0, "a name past the end");

  tessera_device *dev = NULL;
  CHECK(tessera_device_open_default(rt, &dev) == TESSERA_OK, "%s", tessera_last_error());
  printf("device: %s\n", tessera_device_describe(dev));

  tessera_module *mod = NULL;
  CHECK(tessera_module_load_file(dev, argv[1], &mod) == TESSERA_OK, "%s", tessera_last_error());
  tessera_kernel *add = NULL;
  CHECK(tessera_kernel_get(mod, "vector_add", &add) == TESSERA_OK, "%s", tessera_last_error());

  enum { N = 5000 };
  static float x[N], y[N], out[N];
  unsigned seed = (unsigned)time(NULL);
  srand(seed);
  for (int i = 0; i < N; ++i) {
    x[i] = (float)((double)rand() / RAND_MAX * 200 - 100), y[i] = (float)((double)rand() / RAND_MAX * 200 - 100);
    out[i] = NAN; /* poison */
  }
  tessera_buffer *bx = NULL, *by = NULL, *bo = NULL;
  CHECK(tessera_buffer_create(dev, TESSERA_F32, N, &bx) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_buffer_create(dev, TESSERA_F32, N, &by) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_buffer_create(dev, TESSERA_F32, N, &bo) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_buffer_bytes(bx) == sizeof x, "bytes %zu", tessera_buffer_bytes(bx));
  CHECK(tessera_buffer_upload(bx, x, sizeof x) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_buffer_upload(by, y, sizeof y) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_buffer_upload(bo, out, sizeof out) == TESSERA_OK, "%s", tessera_last_error());

  tessera_arg args[4] = {tessera_arg_buffer(bx), tessera_arg_buffer(by), tessera_arg_buffer(bo), tessera_arg_i32(N - 7)};
  uint32_t grid[3] = {(N + 127) / 128 + 40, 1, 1}; /* more programs than needed: the mask stops them */
  CHECK(tessera_kernel_launch(add, grid, args, 4) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_device_synchronize(dev) == TESSERA_OK, "%s", tessera_last_error());
  CHECK(tessera_buffer_download(bo, out, sizeof out) == TESSERA_OK, "%s", tessera_last_error());
  for (int i = 0; i < N; ++i) {
    if (i < N - 7) CHECK(out[i] == x[i] + y[i], "out[%d] = %g, expected %g (seed %u)", i, out[i], x[i] + y[i], seed);
    else CHECK(isnan(out[i]), "out[%d] = %g was written past n (seed %u)", i, out[i], seed);
  }
  printf("vector_add of %d elements from C: exact\n", N - 7);

  /* The same through streams: x and y go up on one stream, the launch runs on another after an
   * event, and the result comes down asynchronously. */
  {
    static float x2[N], sum[N];
    for (int i = 0; i < N; ++i) x2[i] = (float)((double)rand() / RAND_MAX * 200 - 100), sum[i] = NAN;
    tessera_stream *up = NULL, *work = NULL, *fallback = NULL;
    tessera_event *uploaded = NULL, *done = NULL, *start = NULL;
    CHECK(tessera_stream_create(dev, &up) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_stream_create(dev, &work) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_stream_get_default(dev, &fallback) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_buffer_upload(bo, out, sizeof out) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_stream_record(work, &start) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_buffer_upload_async(bx, x2, sizeof x2, 0, up) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_stream_record(up, &uploaded) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_stream_wait(work, uploaded) == TESSERA_OK, "%s", tessera_last_error());
    tessera_arg all[4] = {tessera_arg_buffer(bx), tessera_arg_buffer(by), tessera_arg_buffer(bo), tessera_arg_i32(N)};
    CHECK(tessera_kernel_launch_on(add, grid, all, 4, work) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_buffer_download_async(bo, sum, sizeof sum, 0, work) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_stream_record(work, &done) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_event_synchronize(done) == TESSERA_OK, "%s", tessera_last_error());
    int passed = 0;
    CHECK(tessera_event_query(done, &passed) == TESSERA_OK && passed == 1, "query after synchronize: %d", passed);
    for (int i = 0; i < N; ++i) CHECK(sum[i] == x2[i] + y[i], "stream: sum[%d] = %g, expected %g (seed %u)", i, sum[i], x2[i] + y[i], seed);
    double seconds = -1;
    CHECK(tessera_event_seconds_since(done, start, &seconds) == TESSERA_OK && seconds >= 0, "%s", tessera_last_error());
    printf("vector_add of %d elements on streams from C: exact (%.1f us between the events)\n", N, seconds * 1e6);
    CHECK(tessera_stream_synchronize(fallback) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(tessera_kernel_launch_on(add, grid, all, 4, NULL) == TESSERA_ERROR_INVALID_ARGUMENT, "NULL stream accepted");
    CHECK(tessera_stream_wait(work, NULL) == TESSERA_ERROR_INVALID_ARGUMENT, "NULL event accepted");
    tessera_event_destroy(start);
    tessera_event_destroy(uploaded);
    tessera_event_destroy(done);
    tessera_stream_destroy(up);
    tessera_stream_destroy(work);
    tessera_stream_destroy(fallback);
  }

  /* Errors come back as statuses with a message, never as a crash. */
  tessera_arg wrong[4] = {tessera_arg_buffer(bx), tessera_arg_buffer(by), tessera_arg_buffer(bo), tessera_arg_f32(1.0f)};
  CHECK(tessera_kernel_launch(add, grid, wrong, 4) == TESSERA_ERROR_INVALID_ARGUMENT, "float for n accepted");
  CHECK(strstr(tessera_last_error(), "argument 3") != NULL, "message: %s", tessera_last_error());
  printf("a float where n is an i32: %s\n", tessera_last_error());
  CHECK(tessera_kernel_launch(add, grid, args, 3) == TESSERA_ERROR_INVALID_ARGUMENT, "3 arguments accepted");
  tessera_kernel *missing = NULL;
  CHECK(tessera_kernel_get(mod, "no_such_kernel", &missing) == TESSERA_ERROR_NOT_FOUND && missing == NULL, "%s",
        tessera_last_error());
  tessera_module *none = NULL;
  CHECK(tessera_module_load_file(dev, "/nonexistent/kernels.tspkg", &none) != TESSERA_OK && none == NULL, "loaded");
  CHECK(tessera_buffer_upload(NULL, x, 4) == TESSERA_ERROR_INVALID_ARGUMENT, "NULL buffer accepted");
  CHECK(tessera_device_open(rt, 1000, NULL, &dev) == TESSERA_ERROR_NOT_FOUND, "device 1000");
  CHECK(tessera_device_open(rt, 0, "opencl", &dev) == TESSERA_ERROR_INVALID_ARGUMENT, "backend opencl");

  /* What the driver reports about the kernel's machine code (none on lavapipe). */
  size_t figures = tessera_kernel_statistic_count(add);
  for (size_t i = 0; i < figures; ++i) {
    const char *name = NULL;
    double value = NAN;
    CHECK(tessera_kernel_statistic(add, i, &name, &value) == TESSERA_OK, "%s", tessera_last_error());
    CHECK(name && name[0] && isfinite(value), "statistic %zu", i);
    printf("  %s: %g\n", name, value);
  }
  const char *past = NULL;
  double pastValue = 0;
  CHECK(tessera_kernel_statistic(add, figures, &past, &pastValue) == TESSERA_ERROR_INVALID_ARGUMENT &&
            strstr(tessera_last_error(), "'vector_add'") != NULL,
        "statistic past the end: %s", tessera_last_error());
  CHECK(tessera_kernel_statistic_count(NULL) == 0, "statistics of NULL");

  tessera_kernel_destroy(add);
  tessera_module_destroy(mod);
  tessera_buffer_destroy(bx);
  tessera_buffer_destroy(by);
  tessera_buffer_destroy(bo);
  tessera_device_destroy(dev);
  tessera_runtime_destroy(rt);
  printf("c api test: PASS\n");
  return 0;
}
