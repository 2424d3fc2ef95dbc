/* kiln's native CPU program runner: a persistent worker pool and one call that runs a program's whole launch
 * list (kiln/runtime/native.py builds and drives it; docs/internals.md, "CPU calling convention").
 *
 * A program is a flat array of int64 words (kiln_program): per launch the address of the kernel's uniform entry
 * `void entry(void **args, int64_t lo, int64_t hi)`, where its arguments start in the program's argument index
 * list, its chunks, each a half-open [lo, hi) slice of the launch's core range, and how many launches from it on
 * run joined (stages). kiln_run gathers the arguments of every launch from the call's values (buffer addresses
 * and symbol values) and runs the launches in order; a launch of one chunk runs in the calling thread, a launch
 * of several is posted to the pool: the caller runs its first chunk, then takes its remaining untaken chunks, and
 * waits until the workers have finished the ones they took. Joined launches (stages > 1 on the first, 0 on the
 * others; all with the same number of chunks) run as one: chunk c of the group runs chunk c of every stage in
 * order on one thread, with no barrier between the stages (the compiler joined them because chunk c of a stage
 * reads only what chunk c of the earlier stages wrote; kernel-join-launches). A stage's chunk-local buffer
 * arguments (kernel-join-launches' chunk_span: only this group uses the buffer, and each chunk touches only its
 * own slice of it) point at one slot per thread instead: the call's value is thread 0's slot, thread t's is t
 * slots on, and the pointer passed is moved back by the chunk's offset in the buffer (rounded down to 64 bytes,
 * so that the buffer's alignment is kept), so the kernel's own indexing lands in the slot; each thread reuses
 * its slot from chunk to chunk, where it is still in that core's cache.
 *
 * A call may also record every chunk's thread (0 the caller, 1.. the workers) and its start and end, which shows
 * whether the workers took part (Executable.timeline).
 *
 * Waiting: a worker with nothing to do spins (pause instructions, reading one counter), then sleeps on a condition
 * variable, so an idle process burns no CPU. How long it spins adapts (spin_deadline): up to max_spin_ns while a
 * call with a split launch runs (kiln_run wakes sleeping workers when it starts, so that they spin by the time
 * its first split launch is posted), and between calls a little longer than the last gap between two calls
 * (between spin_ns and max_spin_ns): programs called back to back find their workers spinning, not asleep. The
 * workers are kept off the caller's CPU (avoid_callers_cpu). A busy machine - a spinner saw a jump of the clock
 * between two reads, or a caller waited far longer than a chunk takes for a worker's chunk: a thread was taken
 * off its core, and more threads are runnable than there are CPUs (lost_core) - turns all of that off for BUSY_NS: spins of spin_ns, no early wake-up, workers free to use every
 * CPU. Other processes then want the cores, every microsecond spun is taken from this process's share of them
 * (autogroup scheduling), and a worker held off one CPU waits behind them with a chunk. A caller waiting for its
 * last chunks spins spin_ns, then sleeps. The job list, the chunk hand-out and the count of unfinished chunks are
 * guarded by the pool's mutex; the spins read atomics only. A job lives on its caller's stack: a worker touches it
 * only inside the mutex, and a caller leaves only after taking the mutex once more after its last chunk finished.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

#define SPIN_CHECK_EVERY 64 /* pause instructions between two reads of the clock */
#define STACK_ARGS 512      /* launch arguments gathered on the stack; a longer list is malloc'd */
#define PREEMPTED_NS 200000 /* a gap this long in a spin (or a wait this much over a chunk): a thread lost its core */
#define BUSY_NS 1000000000  /* after that, how long the machine counts as busy */

typedef void (*kiln_entry)(void **args, int64_t lo, int64_t hi);

#define STAGE_ARGS 64   /* a stage's arguments copied on the stack to point chunk-local ones at a slot */

typedef struct {
  int64_t entry;       /* address of the kernel's uniform entry */
  int64_t first_arg;   /* index of its first argument in the program's arg_index */
  int64_t n_args;
  int64_t first_chunk; /* index of its first chunk in the program's bounds (pairs lo, hi) */
  int64_t n_chunks;
  int64_t n_stages;    /* launches run joined from this one on (1: alone; 0: a later stage of a joined group) */
  int64_t first_slice; /* index of its first chunk-local argument in the program's slices */
  int64_t n_slices;
} kiln_launch;

typedef struct {
  int64_t arg;       /* position among the launch's arguments */
  int64_t per_index; /* bytes of the buffer per index of the launch's core range */
  int64_t slot;      /* bytes of each thread's slot */
} kiln_slice;

typedef struct {
  int64_t n_launches;
  int64_t n_args;   /* total over all launches */
  int64_t n_slices; /* total over all launches */
  kiln_launch launches[];
  /* followed by int64_t arg_index[n_args] (positions in the call's values), kiln_slice slices[n_slices], then
   * int64_t bounds[2 * chunks] */
} kiln_program;

typedef struct kiln_job {
  const kiln_launch *stages;   /* the launch, or a joined group's launches */
  int64_t n_stages;
  void **args;                 /* the call's gathered arguments (each stage's start at its first_arg) */
  const kiln_slice *slices;    /* the program's chunk-local arguments (each stage's at its first_slice) */
  const int64_t *bounds;       /* the program's chunk bounds (each stage's at its first_chunk) */
  int64_t n_chunks;
  int64_t *record;             /* NULL, or 3 words per chunk in program order: thread, start and end (ns) */
  int64_t next;                /* next chunk to hand out (mutex) */
  _Atomic int64_t remaining;   /* chunks not finished; written under the mutex */
  int caller_sleeping;         /* mutex */
  struct kiln_job *prev, *succ; /* the pool's list of jobs with chunks to hand out (mutex) */
} kiln_job;

typedef struct kiln_pool kiln_pool;

typedef struct {
  kiln_pool *pool;
  int32_t index; /* 1.. (the caller is thread 0) */
} kiln_worker;

struct kiln_pool {
  int32_t size; /* threads in all, the caller included */
  int64_t spin_ns;     /* the shortest spin (a busy machine; a caller waiting for its last chunks) */
  int64_t max_spin_ns; /* the longest (while a call runs; between calls that follow each other closely) */
  pthread_t *threads;
  kiln_worker *workers;
  pthread_mutex_t lock;
  pthread_cond_t work; /* a job was posted, or stop */
  pthread_cond_t done; /* a job whose caller sleeps has finished */
  kiln_job *head, *tail;
  _Atomic uint64_t posted; /* bumped at every post: what idle workers spin on */
  _Atomic int32_t calls;   /* kiln_run calls in progress that have a split launch */
  _Atomic int64_t last_end;   /* when the last such call ended (ns; 0: none yet) */
  _Atomic int64_t idle_spin;  /* an idle worker's spin between calls, from the last gap between two calls */
  _Atomic int64_t busy_until; /* a thread lost its core: the machine counts as busy until then (ns) */
  _Atomic int32_t sleepers;   /* written under the mutex */
  int stop;
  cpu_set_t cpus;             /* the CPUs the process may use (when the pool was made) */
  _Atomic int32_t avoided;    /* the CPU the workers are kept off: the last caller's (-1: none, a busy machine) */
};

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int is_busy(kiln_pool *pool, int64_t t) {
  return t < atomic_load_explicit(&pool->busy_until, memory_order_relaxed);
}

/* Whether other threads want this machine's CPUs now: more runnable threads system-wide (the fourth field of
 * /proc/loadavg, "running/total", which counts this process's own) than the CPUs this process may use. Where that
 * cannot be read, a thread that lost its core is taken as proof enough. */
static int others_want_cpus(const kiln_pool *pool) {
  int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1;
  char text[128];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 1;
  text[n] = 0;
  double load1, load5, load15;
  int running, total;
  if (sscanf(text, "%lf %lf %lf %d/%d", &load1, &load5, &load15, &running, &total) != 5) return 1;
  return running > CPU_COUNT(&pool->cpus);
}

/* A thread lost its core at `t`: the machine is busy if other threads want the CPUs. That alone proves nothing:
 * on an idle machine a hypervisor's pause or a burst of interrupts does it too, and once the workers are free to
 * use every CPU the scheduler often puts one on the caller's CPU, where the two take turns and every call looks
 * preempted: marked busy on that evidence, an idle 2-core machine stayed busy for good and ran every split launch
 * on one core (medians 2x the best call). While busy, the check is repeated at most every BUSY_NS / 2. */
static void lost_core(kiln_pool *pool, int64_t t) {
  if (atomic_load_explicit(&pool->busy_until, memory_order_relaxed) - t > BUSY_NS / 2) return;
  if (others_want_cpus(pool)) atomic_store_explicit(&pool->busy_until, t + BUSY_NS, memory_order_relaxed);
}

/* Until when an idle worker that started spinning at `start` spins, asked at `t`: see the comment at the top.
 * Between calls the spin counts from the last call's end, so that a worker idle since its last chunk of a call
 * still covers the gap after it. */
static int64_t spin_deadline(kiln_pool *pool, int64_t start, int64_t t) {
  if (is_busy(pool, t)) return start + pool->spin_ns;
  if (atomic_load_explicit(&pool->calls, memory_order_relaxed) > 0) return start + pool->max_spin_ns;
  int64_t end = atomic_load_explicit(&pool->last_end, memory_order_relaxed);
  return (end > start ? end : start) + atomic_load_explicit(&pool->idle_spin, memory_order_relaxed);
}

/* Spin until the pool's post counter moves from `seen` (1) or the spin's deadline passes (0); a spinner taken
 * off its core reports it (lost_core) and stops at once. */
static int spin_for_post(kiln_pool *pool, uint64_t seen) {
  int64_t start = now_ns(), last = start;
  for (;;) {
    for (int i = 0; i < SPIN_CHECK_EVERY; i++) {
      CPU_RELAX();
      if (atomic_load_explicit(&pool->posted, memory_order_relaxed) != seen) return 1;
    }
    int64_t t = now_ns();
    if (t - last > PREEMPTED_NS) {
      lost_core(pool, t);
      return 0;
    }
    last = t;
    if (t >= spin_deadline(pool, start, t)) return 0;
  }
}

static void unlink_job(kiln_pool *pool, kiln_job *job) {
  if (job->prev) job->prev->succ = job->succ; else pool->head = job->succ;
  if (job->succ) job->succ->prev = job->prev; else pool->tail = job->prev;
}

/* The next chunk of `job` (mutex held); the job leaves the list once its last chunk is handed out. */
static int64_t take_chunk(kiln_pool *pool, kiln_job *job) {
  int64_t chunk = job->next++;
  if (job->next == job->n_chunks) unlink_job(pool, job);
  return chunk;
}

/* Call `stage`'s entry on [lo, hi) in thread `thread`: its chunk-local arguments moved to the thread's slot. */
static void run_stage(const kiln_job *job, const kiln_launch *stage, int64_t lo, int64_t hi, int32_t thread) {
  void **args = job->args + stage->first_arg;
  if (stage->n_slices == 0) {
    ((kiln_entry)(intptr_t)stage->entry)(args, lo, hi);
    return;
  }
  void *stack_args[STAGE_ARGS];
  void **moved = stage->n_args <= STAGE_ARGS ? stack_args : malloc((size_t)stage->n_args * sizeof *moved);
  if (!moved) abort(); /* out of memory for a few pointers: nothing sensible is left to do */
  for (int64_t i = 0; i < stage->n_args; i++) moved[i] = args[i];
  for (int64_t i = 0; i < stage->n_slices; i++) {
    const kiln_slice *slice = &job->slices[stage->first_slice + i];
    intptr_t offset = (intptr_t)(lo * slice->per_index) & ~(intptr_t)63;
    moved[slice->arg] = (char *)args[slice->arg] + (intptr_t)thread * slice->slot - offset;
  }
  ((kiln_entry)(intptr_t)stage->entry)(moved, lo, hi);
  if (moved != stack_args) free(moved);
}

/* Chunk `chunk` of every stage of `job`, in order. */
static void run_chunk(const kiln_job *job, int64_t chunk, int32_t thread) {
  for (int64_t s = 0; s < job->n_stages; s++) {
    const kiln_launch *stage = &job->stages[s];
    int64_t at = stage->first_chunk + chunk;
    int64_t *record = job->record ? job->record + 3 * at : NULL;
    if (record) {
      record[0] = thread;
      record[1] = now_ns();
    }
    run_stage(job, stage, job->bounds[2 * at], job->bounds[2 * at + 1], thread);
    if (record) record[2] = now_ns();
  }
}

/* One chunk of `job` finished (mutex held). */
static void finish_chunk(kiln_pool *pool, kiln_job *job) {
  int64_t left = atomic_load_explicit(&job->remaining, memory_order_relaxed) - 1;
  atomic_store_explicit(&job->remaining, left, memory_order_release);
  if (left == 0 && job->caller_sleeping) pthread_cond_broadcast(&pool->done);
}

static void *work(void *arg) {
  const kiln_worker *self = arg;
  kiln_pool *pool = self->pool;
  pthread_mutex_lock(&pool->lock);
  while (!pool->stop) {
    kiln_job *job = pool->head;
    if (job) {
      int64_t chunk = take_chunk(pool, job);
      pthread_mutex_unlock(&pool->lock);
      run_chunk(job, chunk, self->index);
      pthread_mutex_lock(&pool->lock);
      finish_chunk(pool, job);
      continue;
    }
    uint64_t seen = atomic_load_explicit(&pool->posted, memory_order_relaxed);
    pthread_mutex_unlock(&pool->lock);
    int posted = spin_for_post(pool, seen);
    pthread_mutex_lock(&pool->lock);
    if (!posted && atomic_load_explicit(&pool->posted, memory_order_relaxed) == seen && !pool->stop) {
      atomic_fetch_add_explicit(&pool->sleepers, 1, memory_order_relaxed);
      pthread_cond_wait(&pool->work, &pool->lock);
      atomic_fetch_sub_explicit(&pool->sleepers, 1, memory_order_relaxed);
    }
  }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

kiln_pool *kiln_pool_create(int32_t size, int64_t spin_ns, int64_t max_spin_ns) {
  kiln_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pool->size = size < 1 ? 1 : size;
  pool->spin_ns = spin_ns < 0 ? 0 : spin_ns;
  pool->max_spin_ns = max_spin_ns < pool->spin_ns ? pool->spin_ns : max_spin_ns;
  atomic_init(&pool->idle_spin, pool->spin_ns);
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->done, NULL);
  pool->threads = calloc((size_t)pool->size, sizeof *pool->threads);
  pool->workers = calloc((size_t)pool->size, sizeof *pool->workers);
  if (!pool->threads || !pool->workers) {
    free(pool->threads);
    free(pool->workers);
    free(pool);
    return NULL;
  }
  /* workers take no signals: Python handles them in its main thread */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int started = 1;
  for (; started < pool->size; started++) {
    pool->workers[started] = (kiln_worker){pool, started};
    if (pthread_create(&pool->threads[started], NULL, work, &pool->workers[started]) != 0) break;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pool->size = started; /* fewer threads if the system refused some: still correct, the caller runs the rest */
  atomic_init(&pool->avoided, -1);
  if (sched_getaffinity(0, sizeof pool->cpus, &pool->cpus) != 0) CPU_ZERO(&pool->cpus);
  return pool;
}

/* Stop and join the workers and free the pool; nothing may be running on it. */
void kiln_pool_destroy(kiln_pool *pool) {
  pthread_mutex_lock(&pool->lock);
  pool->stop = 1;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
  for (int32_t i = 1; i < pool->size; i++) pthread_join(pool->threads[i], NULL);
  pthread_cond_destroy(&pool->work);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->lock);
  free(pool->threads);
  free(pool->workers);
  free(pool);
}

int32_t kiln_pool_size(const kiln_pool *pool) { return pool->size; }

/* Whether the pool treats the machine as busy now (short spins, workers free to use every CPU). */
int32_t kiln_pool_busy(kiln_pool *pool) { return is_busy(pool, now_ns()); }

/* Report that a thread of this process lost its core just now (as a spinner or a waiting caller does); returns
 * whether the pool now treats the machine as busy. For tests: the pool's threads report for themselves. */
int32_t kiln_pool_lost_core(kiln_pool *pool) {
  int64_t t = now_ns();
  lost_core(pool, t);
  return is_busy(pool, t);
}

/* What an idle worker spins between calls now (ns), learned from the last gap between two calls. */
int64_t kiln_pool_idle_spin(kiln_pool *pool) { return atomic_load_explicit(&pool->idle_spin, memory_order_relaxed); }

/* Keep the workers off the calling thread's CPU while the machine is not busy. A worker there can only take turns
 * with the caller, and the scheduler leaves it there: a woken thread is often placed on its waker's CPU, and an
 * idle CPU does not pull a task that ran within the last half millisecond (measured: a worker on the caller's CPU
 * took no chunk, one on the other CPU half of them). On a busy machine a worker held to the other CPUs waits
 * there behind other processes, holding the chunk the caller then waits for: the workers may use every CPU again.
 * Costs a system call per worker when the caller has moved (or the machine turned busy) since the last check. */
static void avoid_callers_cpu(kiln_pool *pool) {
  if (CPU_COUNT(&pool->cpus) < 2) return;
  int cpu = is_busy(pool, now_ns()) ? -1 : sched_getcpu();
  if (cpu == atomic_load_explicit(&pool->avoided, memory_order_relaxed)) return;
  if (cpu >= CPU_SETSIZE || (cpu >= 0 && !CPU_ISSET(cpu, &pool->cpus))) return;
  cpu_set_t allowed = pool->cpus;
  if (cpu >= 0) CPU_CLR(cpu, &allowed);
  for (int32_t i = 1; i < pool->size; i++) pthread_setaffinity_np(pool->threads[i], sizeof allowed, &allowed);
  atomic_store_explicit(&pool->avoided, cpu, memory_order_relaxed);
}

/* A call with a split launch starts: learn the spin between calls from the gap since the last one ended (a
 * little longer than that gap, so that the next call finds the workers spinning; spin_ns when the gap is too
 * long to spin through), and wake sleeping workers, which then spin while the call runs. */
static void begin_call(kiln_pool *pool) {
  avoid_callers_cpu(pool); /* before the wake-up, so that a woken worker starts off the caller's CPU */
  int64_t t = now_ns();
  int64_t last = atomic_load_explicit(&pool->last_end, memory_order_relaxed);
  if (last) {
    int64_t spin = pool->spin_ns + 2 * (t - last);
    atomic_store_explicit(&pool->idle_spin, spin <= pool->max_spin_ns ? spin : pool->spin_ns, memory_order_relaxed);
  }
  atomic_fetch_add_explicit(&pool->calls, 1, memory_order_relaxed);
  if (atomic_load_explicit(&pool->sleepers, memory_order_relaxed) && !is_busy(pool, t)) {
    pthread_mutex_lock(&pool->lock);
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
  }
}

static void end_call(kiln_pool *pool) {
  atomic_fetch_sub_explicit(&pool->calls, 1, memory_order_relaxed);
  atomic_store_explicit(&pool->last_end, now_ns(), memory_order_relaxed);
}

static void run_parallel(kiln_pool *pool, kiln_job *job) {
  avoid_callers_cpu(pool); /* the caller may have moved since the call began */
  job->next = 1; /* the caller keeps the first chunk */
  atomic_store_explicit(&job->remaining, job->n_chunks, memory_order_relaxed);
  job->caller_sleeping = 0;
  pthread_mutex_lock(&pool->lock);
  job->prev = pool->tail;
  job->succ = NULL;
  if (pool->tail) pool->tail->succ = job; else pool->head = job;
  pool->tail = job;
  atomic_fetch_add_explicit(&pool->posted, 1, memory_order_relaxed);
  if (pool->sleepers) pthread_cond_broadcast(&pool->work);

  int64_t chunk = 0; /* the loop starts by releasing the mutex taken to post the job */
  int64_t longest = 0; /* the caller's longest chunk */
  for (;;) {
    pthread_mutex_unlock(&pool->lock);
    int64_t start = now_ns();
    run_chunk(job, chunk, 0);
    int64_t took = now_ns() - start;
    longest = took > longest ? took : longest;
    pthread_mutex_lock(&pool->lock);
    finish_chunk(pool, job);
    if (job->next == job->n_chunks) break;
    chunk = take_chunk(pool, job);
  }
  int waiting = atomic_load_explicit(&job->remaining, memory_order_relaxed) != 0;
  pthread_mutex_unlock(&pool->lock);
  if (!waiting) return;
  int64_t wait_start = now_ns(), until = wait_start + pool->spin_ns;
  int finished = 0;
  while (!finished && now_ns() < until) {
    for (int i = 0; i < SPIN_CHECK_EVERY && !finished; i++) {
      CPU_RELAX();
      finished = atomic_load_explicit(&job->remaining, memory_order_acquire) == 0;
    }
  }
  /* taken even when the spin saw the end: the last worker may still be inside the mutex, touching the job */
  pthread_mutex_lock(&pool->lock);
  job->caller_sleeping = 1;
  while (atomic_load_explicit(&job->remaining, memory_order_relaxed) != 0) pthread_cond_wait(&pool->done, &pool->lock);
  pthread_mutex_unlock(&pool->lock);
  /* waiting much longer than a chunk takes: a worker was taken off its core holding one (a busy machine) */
  int64_t t = now_ns();
  if (t - wait_start > longest + PREEMPTED_NS) lost_core(pool, t);
}

/* Run every launch of `program` in order with the call's `values` (buffer addresses, symbol values); when
 * `times` is not NULL, store each launch's wall time in seconds there (a joined group's on its first launch, 0 on
 * the others); when `chunks` is not NULL, each chunk's thread, start and end (3 words per chunk, in program
 * order). */
void kiln_run(kiln_pool *pool, const kiln_program *program, const int64_t *values, double *times, int64_t *chunks) {
  const int64_t *arg_index = (const int64_t *)(program->launches + program->n_launches);
  const kiln_slice *slices = (const kiln_slice *)(arg_index + program->n_args);
  const int64_t *bounds = (const int64_t *)(slices + program->n_slices);
  void *stack_args[STACK_ARGS];
  void **args = program->n_args <= STACK_ARGS ? stack_args : malloc((size_t)program->n_args * sizeof *args);
  if (!args) abort(); /* out of memory for a few pointers: nothing sensible is left to do */
  for (int64_t i = 0; i < program->n_args; i++) args[i] = (void *)(intptr_t)values[arg_index[i]];
  int split = 0;
  for (int64_t k = 0; k < program->n_launches && pool->size > 1; k++) split |= program->launches[k].n_chunks > 1;
  if (split) begin_call(pool);
  for (int64_t k = 0; k < program->n_launches;) {
    const kiln_launch *launch = &program->launches[k];
    int64_t n_stages = launch->n_stages < 1 ? 1 : launch->n_stages;
    if (n_stages > program->n_launches - k) n_stages = program->n_launches - k;
    int64_t start = times ? now_ns() : 0;
    kiln_job job = {
        .stages = launch,
        .n_stages = n_stages,
        .args = args,
        .slices = slices,
        .bounds = bounds,
        .n_chunks = launch->n_chunks,
        .record = chunks,
    };
    if (job.n_chunks == 1 || pool->size == 1) {
      for (int64_t c = 0; c < job.n_chunks; c++) run_chunk(&job, c, 0);
    } else {
      run_parallel(pool, &job);
    }
    if (times) {
      times[k] = (double)(now_ns() - start) * 1e-9;
      for (int64_t s = 1; s < n_stages; s++) times[k + s] = 0;
    }
    k += n_stages;
  }
  if (split) end_call(pool);
  if (args != stack_args) free(args);
}
