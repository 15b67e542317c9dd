/*
 * onnxc_harness.c - a model-independent main() that runs one generated model on
 * tensors kept in files: on an emulated board through semihosting file I/O, or
 * on the host as an ordinary program.
 *
 * Build it together with NAME.c (and NAME_weights.c, if any):
 *   -DONNXC_MODEL_HEADER='"NAME.h"' -DONNXC_MODEL=NAME -DONNXC_NO_DEFAULT_ARENA
 * ONNXC_NO_DEFAULT_ARENA drops the model's built-in arena, so what runs is the
 * caller-provided-workspace path firmware uses: a static workspace of
 * NAME_WORKSPACE_SIZE bytes aligned to ONNXC_ARENA_ALIGN, passed to NAME_invoke.
 *
 * Protocol, in the current directory (qemu resolves semihosting paths against
 * its own working directory):
 *   inputK.bin   input K of NAME_inputs[], raw bytes in the target's byte order,
 *                row-major, exactly numel * element size bytes;
 *   outputK.bin  output K of NAME_outputs[], written the same way.
 * Exit status 0 on success; otherwise one line "onnxc_harness: ..." on stderr and
 *   2  an input file is missing, short or too long, or an output cannot be written;
 *   3  the model returned a negative status;
 *   4  no memory for a tensor, or an element type the harness does not know.
 *
 * Define ONNXC_HARNESS_TRAP_UNALIGNED when an Armv6-M (Cortex-M0) program runs
 * on an Armv7-M core: it sets CCR.UNALIGN_TRP so that an unaligned load or store
 * faults, as it would on the Armv6-M core, instead of silently working.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include ONNXC_MODEL_HEADER

#define ONNXC_HARNESS_CAT_(a, b) a##b
#define ONNXC_HARNESS_CAT(a, b) ONNXC_HARNESS_CAT_(a, b)
#define MODEL(suffix) ONNXC_HARNESS_CAT(ONNXC_MODEL, suffix)

#if defined(__GNUC__) || defined(__clang__)
#define ONNXC_HARNESS_ALIGNED __attribute__((aligned(ONNXC_ARENA_ALIGN)))
#else
#error "onnxc_harness.c needs GCC or clang to align its static workspace"
#endif

/* The workspace (never zero-sized: C has no empty arrays). */
static unsigned char workspace[MODEL(_WORKSPACE_SIZE) > 0 ? MODEL(_WORKSPACE_SIZE) : 1]
    ONNXC_HARNESS_ALIGNED;

#define MAX_TENSORS 64

/* Bytes of one element of an onnxc_dtype, or 0 for a type the harness lacks. */
static size_t element_size(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_UINT8:
  case ONNXC_DTYPE_INT8:
  case ONNXC_DTYPE_BOOL:
    return 1;
  case ONNXC_DTYPE_UINT16:
  case ONNXC_DTYPE_INT16:
  case ONNXC_DTYPE_FLOAT16:
    return 2;
  case ONNXC_DTYPE_FLOAT:
  case ONNXC_DTYPE_INT32:
  case ONNXC_DTYPE_UINT32:
    return 4;
  case ONNXC_DTYPE_INT64:
  case ONNXC_DTYPE_DOUBLE:
  case ONNXC_DTYPE_UINT64:
    return 8;
  default:
    return 0;
  }
}

/* Bytes of a whole tensor; 0 also for an unknown type (checked by the caller). */
static size_t tensor_bytes(const onnxc_tensor_info *info) {
  size_t bytes = element_size(info->dtype);
  int32_t d;
  for (d = 0; d < info->rank; ++d) {
    bytes *= (size_t)info->shape[d];
  }
  return bytes;
}

/* malloc(0) may return NULL: every buffer gets at least one byte. */
static void *allocate(const char *kind, int index, const onnxc_tensor_info *info,
                      size_t bytes) {
  void *buffer;
  if (element_size(info->dtype) == 0) {
    fprintf(stderr, "onnxc_harness: %s %d '%s' has element type %ld, which the harness "
            "cannot size\n", kind, index, info->name, (long)info->dtype);
    return NULL;
  }
  buffer = malloc(bytes > 0 ? bytes : 1);
  if (buffer == NULL) {
    fprintf(stderr, "onnxc_harness: no memory for %s %d '%s' (%lu bytes)\n", kind, index,
            info->name, (unsigned long)bytes);
  }
  return buffer;
}

/* Opens "KINDK.bin" (KIND is input or output) into `path`; says why on failure. */
static FILE *open_tensor(const char *kind, int index, const onnxc_tensor_info *info,
                         const char *mode, char path[32]) {
  FILE *file;
  sprintf(path, "%s%d.bin", kind, index);
  file = fopen(path, mode);
  if (file == NULL) {
    fprintf(stderr, "onnxc_harness: cannot open %s (%s %d '%s')\n", path, kind, index,
            info->name);
  }
  return file;
}

static int read_input(int index, const onnxc_tensor_info *info, void *buffer, size_t bytes) {
  char path[32];
  FILE *file = open_tensor("input", index, info, "rb", path);
  size_t got;
  int extra;
  if (file == NULL) {
    return 2;
  }
  got = fread(buffer, 1, bytes, file);
  extra = fgetc(file);
  fclose(file);
  if (got != bytes || extra != EOF) {
    fprintf(stderr, "onnxc_harness: %s (input %d '%s') must hold exactly %lu bytes, it is %s\n",
            path, index, info->name, (unsigned long)bytes, got != bytes ? "shorter" : "longer");
    return 2;
  }
  return 0;
}

static int write_output(int index, const onnxc_tensor_info *info, const void *buffer,
                        size_t bytes) {
  char path[32];
  FILE *file = open_tensor("output", index, info, "wb", path);
  if (file == NULL) {
    return 2;
  }
  size_t put = fwrite(buffer, 1, bytes, file);
  int closed = fclose(file);
  if (put != bytes || closed != 0) {
    fprintf(stderr, "onnxc_harness: writing %s (output %d '%s') failed\n", path, index,
            info->name);
    return 2;
  }
  return 0;
}

int main(void) {
  const void *inputs[MAX_TENSORS];
  void *outputs[MAX_TENSORS];
  size_t output_bytes[MAX_TENSORS];
  int k;
  int status;

#ifdef ONNXC_HARNESS_TRAP_UNALIGNED
  *(volatile uint32_t *)0xE000ED14u |= 1u << 3; /* SCB->CCR.UNALIGN_TRP */
#endif
  if (MODEL(_NUM_INPUTS) > MAX_TENSORS || MODEL(_NUM_OUTPUTS) > MAX_TENSORS) {
    fprintf(stderr, "onnxc_harness: the model has more than %d inputs or outputs\n",
            MAX_TENSORS);
    return 4;
  }
  for (k = 0; k < MODEL(_NUM_INPUTS); ++k) {
    const onnxc_tensor_info *info = &MODEL(_inputs)[k];
    size_t bytes = tensor_bytes(info);
    void *buffer = allocate("input", k, info, bytes);
    if (buffer == NULL) {
      return 4;
    }
    status = read_input(k, info, buffer, bytes);
    if (status != 0) {
      return status;
    }
    inputs[k] = buffer;
  }
  for (k = 0; k < MODEL(_NUM_OUTPUTS); ++k) {
    const onnxc_tensor_info *info = &MODEL(_outputs)[k];
    output_bytes[k] = tensor_bytes(info);
    outputs[k] = allocate("output", k, info, output_bytes[k]);
    if (outputs[k] == NULL) {
      return 4;
    }
  }
  status = MODEL(_invoke)(workspace, inputs, outputs);
  if (status != ONNXC_OK) {
    fprintf(stderr, "onnxc_harness: the model returned status %d\n", status);
    return 3;
  }
  for (k = 0; k < MODEL(_NUM_OUTPUTS); ++k) {
    status = write_output(k, &MODEL(_outputs)[k], outputs[k], output_bytes[k]);
    if (status != 0) {
      return status;
    }
  }
  return 0;
}
