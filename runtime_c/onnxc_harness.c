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
 *   inputK.bin    input K of NAME_inputs[], raw bytes in the target's byte order,
 *                 row-major, exactly numel * element size bytes;
 *   inputK.shape  only for an input with sizes known at run time (-1 in the
 *                 table): its rank sizes as int64 in the target's byte order;
 *   outputK.bin   output K of NAME_outputs[], written the same way, and
 *   outputK.shape its sizes, as int64. Outputs get the capacity of their
 *                 max_shape, so every size must be bounded.
 * Exit status 0 on success; otherwise one line "onnxc_harness: ..." on stderr and
 *   2  an input file is missing, short or too long, or an output cannot be written;
 *   3  the model returned a negative status;
 *   4  no memory for a tensor, or a rank, element type or unbounded output the
 *      harness does not handle.
 *
 * Define ONNXC_HARNESS_WEIGHTS="NAME.weights" for a model whose weights are a
 * binary file (onnxc compile --weights-binary): the harness reads it into
 * memory aligned as NAME_set_weights needs and gives it to the model first.
 *
 * Define ONNXC_HARNESS_SYSTICK to time the NAME_invoke call with the core's
 * SysTick timer (Armv6-M and Armv7-M), counting processor-clock ticks: it is
 * started just before the call and read just after, its 24-bit wraps counted
 * by its interrupt (picolibc's vector table calls arm_systick_isr), and the
 * ticks are written as a decimal number to ticks.txt. Under qemu's
 * `-icount shift=0` the virtual clock advances 1 ns per guest instruction, so
 * the instructions of the call are ticks * 1e9 / clock frequency (a few
 * instructions of starting and reading the timer, and of each wrap's
 * interrupt, included).
 *
 * Define ONNXC_HARNESS_PROFILE as well for a profiling build of the model
 * (compile option `profile`): the harness defines the `onnxc_profile_mark`
 * hook the model calls where each step starts, adds the ticks since the
 * previous mark to that step (the hook's own instructions outside it, but
 * for its call and return) and writes steps.txt, one line "TICKS LABEL" per
 * step in order.
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
#define MAX_RANK 16

/* Reads exactly `bytes` bytes of "KINDK.EXT" (KIND input or output, EXT bin or
   shape) into `buffer`: 0, or 2 after saying why. */
static int read_file(const char *kind, int index, const char *ext, const char *tensor,
                     void *buffer, size_t bytes) {
  char path[40];
  FILE *file;
  size_t got;
  int extra;
  sprintf(path, "%s%d.%s", kind, index, ext);
  file = fopen(path, "rb");
  if (file == NULL) {
    fprintf(stderr, "onnxc_harness: cannot open %s (%s %d '%s')\n", path, kind, index, tensor);
    return 2;
  }
  got = fread(buffer, 1, bytes, file);
  extra = fgetc(file);
  fclose(file);
  if (got != bytes || extra != EOF) {
    fprintf(stderr, "onnxc_harness: %s (%s %d '%s') must hold exactly %lu bytes, it is %s\n",
            path, kind, index, tensor, (unsigned long)bytes, got != bytes ? "shorter" : "longer");
    return 2;
  }
  return 0;
}

#ifdef ONNXC_HARNESS_WEIGHTS
/* Reads the weights file into aligned memory and gives it to the model:
   0, or 2, 3 or 4 after saying why. The memory stays the model's. */
static int load_weights(void) {
  static const char path[] = ONNXC_HARNESS_WEIGHTS;
  const size_t bytes = (size_t)MODEL(_WEIGHTS_BYTES);
  unsigned char *block = malloc(bytes + 64);
  unsigned char *data;
  FILE *file;
  size_t got;
  int extra;
  int status;
  if (block == NULL) {
    fprintf(stderr, "onnxc_harness: no memory for the %lu bytes of %s\n",
            (unsigned long)bytes, path);
    return 4;
  }
  data = block + (64 - (size_t)((uintptr_t)block % 64)) % 64;
  file = fopen(path, "rb");
  if (file == NULL) {
    fprintf(stderr, "onnxc_harness: cannot open %s\n", path);
    return 2;
  }
  got = fread(data, 1, bytes, file);
  extra = fgetc(file);
  fclose(file);
  if (got != bytes || extra != EOF) {
    fprintf(stderr, "onnxc_harness: %s must hold exactly %lu bytes, it is %s\n", path,
            (unsigned long)bytes, got != bytes ? "shorter" : "longer");
    return 2;
  }
  status = MODEL(_set_weights)(data, bytes);
  if (status != ONNXC_OK) {
    fprintf(stderr, "onnxc_harness: the model refused %s (status %d)\n", path, status);
    return 3;
  }
  return 0;
}
#endif

static int write_file(const char *kind, int index, const char *ext, const char *tensor,
                      const void *buffer, size_t bytes) {
  char path[40];
  FILE *file;
  size_t put;
  int closed;
  sprintf(path, "%s%d.%s", kind, index, ext);
  file = fopen(path, "wb");
  if (file == NULL) {
    fprintf(stderr, "onnxc_harness: cannot open %s (%s %d '%s')\n", path, kind, index, tensor);
    return 2;
  }
  put = fwrite(buffer, 1, bytes, file);
  closed = fclose(file);
  if (put != bytes || closed != 0) {
    fprintf(stderr, "onnxc_harness: writing %s (%s %d '%s') failed\n", path, kind, index,
            tensor);
    return 2;
  }
  return 0;
}

/* Elements of a shape; 0 for a rank-0 (scalar) shape is wrong, so start at 1. */
static size_t count(const int64_t *shape, int32_t rank) {
  size_t n = 1;
  int32_t d;
  for (d = 0; d < rank; ++d) {
    n *= (size_t)shape[d];
  }
  return n;
}

/* malloc(0) may return NULL: every buffer gets at least one byte. */
static void *allocate(const char *kind, int index, const char *tensor, size_t bytes) {
  void *buffer = malloc(bytes > 0 ? bytes : 1);
  if (buffer == NULL) {
    fprintf(stderr, "onnxc_harness: no memory for %s %d '%s' (%lu bytes)\n", kind, index,
            tensor, (unsigned long)bytes);
  }
  return buffer;
}

/* Whether a table shape has a size known only at run time. */
static int is_dynamic(const onnxc_tensor_info *info) {
  int32_t d;
  for (d = 0; d < info->rank; ++d) {
    if (info->shape[d] < 0) {
      return 1;
    }
  }
  return 0;
}

#ifdef ONNXC_HARNESS_SYSTICK
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define SYST_PERIOD 0x1000000ul /* ticks from one reload to the next */

static volatile unsigned long systick_wraps;

void arm_systick_isr(void); /* picolibc's weak SysTick handler, replaced */
void arm_systick_isr(void) { ++systick_wraps; }

/* Counting down from the top, with an interrupt on each wrap and the processor
   clock as its source. */
static void systick_start(void) {
  SYST_CSR = 0;
  SYST_RVR = SYST_PERIOD - 1;
  SYST_CVR = 0; /* any write clears it (see systick_elapsed) */
  systick_wraps = 0;
  SYST_CSR = 7u; /* ENABLE | TICKINT | CLKSOURCE */
}

/* Ticks since systick_start. The counter reads 0 until the first tick loads
   the reload value, then counts down to 0, where it wraps (interrupt) and
   reloads on the next tick: after t ticks it reads (-t) mod SYST_PERIOD. With
   interrupts masked, a wrap not yet counted shows as a pending SysTick
   exception (ICSR.PENDSTSET). */
static unsigned long systick_now(void) {
  unsigned long wraps;
  uint32_t value;
  __asm__ volatile("cpsid i" ::: "memory");
  wraps = systick_wraps;
  value = SYST_CVR;
  if (SCB_ICSR & (1ul << 26)) {
    value = SYST_CVR;
    wraps += 1;
  }
  __asm__ volatile("cpsie i" ::: "memory");
  return wraps * SYST_PERIOD + ((SYST_PERIOD - value) & (SYST_PERIOD - 1));
}

/* The ticks since systick_start, stopping the timer. */
static unsigned long systick_elapsed(void) {
  unsigned long ticks = systick_now();
  SYST_CSR = 0;
  return ticks;
}

#ifdef ONNXC_HARNESS_PROFILE
#define PROFILE_STEPS 4096
static unsigned long step_ticks[PROFILE_STEPS];
static const char *step_labels[PROFILE_STEPS];
static int32_t step_count;
static int32_t step_open = -1;
static unsigned long step_since;

/* The model's profiling hook: a label starts step `node`; an empty label
   ends the last one, `node` being the number of steps. */
void onnxc_profile_mark(int32_t node, const char *label) {
  unsigned long now = systick_now();
  if (step_open >= 0) {
    step_ticks[step_open] += now - step_since;
  }
  step_open = -1;
  if (label[0] == '\0') {
    if (node > step_count) {
      step_count = node;
    }
    return;
  }
  if (node >= 0 && node < PROFILE_STEPS) {
    step_labels[node] = label;
    step_open = node;
    if (node + 1 > step_count) {
      step_count = node + 1;
    }
  }
  step_since = systick_now();
}

static int write_steps(void) {
  FILE *file = fopen("steps.txt", "w");
  int32_t k;
  int closed;
  if (file == NULL) {
    fprintf(stderr, "onnxc_harness: cannot open steps.txt\n");
    return 2;
  }
  for (k = 0; k < step_count && k < PROFILE_STEPS; ++k) {
    fprintf(file, "%lu %s\n", step_ticks[k], step_labels[k] ? step_labels[k] : "");
  }
  closed = fclose(file);
  if (closed != 0) {
    fprintf(stderr, "onnxc_harness: writing steps.txt failed\n");
    return 2;
  }
  return 0;
}
#endif

static int write_ticks(unsigned long ticks) {
  FILE *file = fopen("ticks.txt", "w");
  int closed;
  if (file == NULL) {
    fprintf(stderr, "onnxc_harness: cannot open ticks.txt\n");
    return 2;
  }
  fprintf(file, "%lu\n", ticks);
  closed = fclose(file);
  if (closed != 0) {
    fprintf(stderr, "onnxc_harness: writing ticks.txt failed\n");
    return 2;
  }
  return 0;
}
#endif

static onnxc_tensor inputs[MAX_TENSORS];
static onnxc_tensor outputs[MAX_TENSORS];
static int64_t shapes[2 * MAX_TENSORS][MAX_RANK];

int main(void) {
  size_t workspace_size = sizeof workspace;
  int k;
  int status;
#ifdef ONNXC_HARNESS_SYSTICK
  unsigned long ticks;
#endif

#ifdef ONNXC_HARNESS_TRAP_UNALIGNED
  *(volatile uint32_t *)0xE000ED14u |= 1u << 3; /* SCB->CCR.UNALIGN_TRP */
#endif
#ifdef ONNXC_HARNESS_WEIGHTS
  status = load_weights();
  if (status != 0) {
    return status;
  }
#endif
  if (MODEL(_NUM_INPUTS) > MAX_TENSORS || MODEL(_NUM_OUTPUTS) > MAX_TENSORS) {
    fprintf(stderr, "onnxc_harness: the model has more than %d inputs or outputs\n",
            MAX_TENSORS);
    return 4;
  }
  for (k = 0; k < MODEL(_NUM_INPUTS); ++k) {
    const onnxc_tensor_info *info = &MODEL(_inputs)[k];
    size_t element = onnxc_dtype_bits(info->dtype);
    size_t bytes;
    int32_t d;
    if (info->rank > MAX_RANK || element == 0) {
      fprintf(stderr, "onnxc_harness: input %d '%s' has a rank or element type the harness "
              "does not handle\n", k, info->name);
      return 4;
    }
    inputs[k].shape = shapes[k];
    if (is_dynamic(info)) {
      status = read_file("input", k, "shape", info->name, shapes[k],
                         (size_t)info->rank * sizeof(int64_t));
      if (status != 0) {
        return status;
      }
    } else {
      for (d = 0; d < info->rank; ++d) {
        shapes[k][d] = info->shape[d];
      }
    }
    bytes = onnxc_dtype_bytes(info->dtype, count(shapes[k], info->rank));
    inputs[k].data = allocate("input", k, info->name, bytes);
    if (inputs[k].data == NULL) {
      return 4;
    }
    status = read_file("input", k, "bin", info->name, inputs[k].data, bytes);
    if (status != 0) {
      return status;
    }
  }
  for (k = 0; k < MODEL(_NUM_OUTPUTS); ++k) {
    const onnxc_tensor_info *info = &MODEL(_outputs)[k];
    size_t element = onnxc_dtype_bits(info->dtype);
    int32_t d;
    if (info->rank > MAX_RANK || element == 0) {
      fprintf(stderr, "onnxc_harness: output %d '%s' has a rank or element type the harness "
              "does not handle\n", k, info->name);
      return 4;
    }
    for (d = 0; d < info->rank; ++d) {
      if (info->max_shape[d] < 0) {
        fprintf(stderr, "onnxc_harness: output %d '%s' has no size bound (declare max_dims)\n",
                k, info->name);
        return 4;
      }
    }
    outputs[k].shape = shapes[MAX_TENSORS + k];
    outputs[k].capacity = count(info->max_shape, info->rank);
    outputs[k].data = allocate("output", k, info->name,
                               onnxc_dtype_bytes(info->dtype, outputs[k].capacity));
    if (outputs[k].data == NULL) {
      return 4;
    }
  }
#ifdef ONNXC_HARNESS_SYSTICK
  systick_start();
  status = MODEL(_invoke)(workspace, &workspace_size, inputs, outputs);
  ticks = systick_elapsed();
#else
  status = MODEL(_invoke)(workspace, &workspace_size, inputs, outputs);
#endif
  if (status != ONNXC_OK) {
    fprintf(stderr, "onnxc_harness: the model returned status %d (workspace %lu bytes)\n",
            status, (unsigned long)workspace_size);
    return 3;
  }
  for (k = 0; k < MODEL(_NUM_OUTPUTS); ++k) {
    const onnxc_tensor_info *info = &MODEL(_outputs)[k];
    size_t bytes = onnxc_dtype_bytes(info->dtype, count(outputs[k].shape, info->rank));
    status = write_file("output", k, "bin", info->name, outputs[k].data, bytes);
    if (status == 0) {
      status = write_file("output", k, "shape", info->name, outputs[k].shape,
                          (size_t)info->rank * sizeof(int64_t));
    }
    if (status != 0) {
      return status;
    }
  }
#ifdef ONNXC_HARNESS_PROFILE
  status = write_steps();
  if (status != 0) {
    return status;
  }
#endif
#ifdef ONNXC_HARNESS_SYSTICK
  return write_ticks(ticks);
#else
  return 0;
#endif
}
