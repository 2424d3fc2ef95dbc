/* kiln's native CPU program runner: a persistent worker pool and one call that runs a program's whole launch
 * list (kiln/runtime/native.py builds and drives it; docs/internals.md, "CPU calling convention").
 *
 * A program is a flat array of int64 words (kiln_program): per launch the address of the kernel's uniform entry
 * `void entry(void **args, int64_t lo, int64_t hi)`, where its arguments start in the program's argument index
 * list, and its chunks, each a half-open [lo, hi) slice of the launch's core range. kiln_run gathers the
 * arguments of every launch from the call's values (buffer addresses and symbol values) and runs the launches in
 * order; a launch of one chunk runs in the calling thread, a launch of several is posted to the pool: the caller
 * runs its first chunk, then takes its remaining untaken chunks, and waits until the workers have finished the
 * ones they took.
 *
 * A call may also record every chunk's thread (0 the caller, 1.. the workers) and its start and end, which shows
 * whether the workers took part (Executable.timeline).
 *
 * Waiting: a worker with nothing to do spins (pause instructions, reading one counter) for spin_ns, then sleeps
 * on a condition variable, so an idle process burns no CPU; a caller waiting for its last chunks spins for as
 * long, then sleeps. The job list, the chunk hand-out and the count of unfinished chunks are guarded by the pool's
 * mutex; the spins read atomics only. A job lives on its caller's stack: a worker touches it only inside the
 * mutex, and a caller leaves only after taking the mutex once more after its last chunk finished.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

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

typedef void (*kiln_entry)(void **args, int64_t lo, int64_t hi);

typedef struct {
  int64_t entry;       /* address of the kernel's uniform entry */
  int64_t first_arg;   /* index of its first argument in the program's arg_index */
  int64_t first_chunk; /* index of its first chunk in the program's bounds (pairs lo, hi) */
  int64_t n_chunks;
} kiln_launch;

typedef struct {
  int64_t n_launches;
  int64_t n_args; /* total over all launches */
  kiln_launch launches[];
  /* followed by int64_t arg_index[n_args] (positions in the call's values), then int64_t bounds[2 * chunks] */
} kiln_program;

typedef struct kiln_job {
  kiln_entry fn;
  void **args;
  const int64_t *bounds;
  int64_t n_chunks;
  int64_t *record;             /* NULL, or 3 words per chunk: thread, start and end (CLOCK_MONOTONIC ns) */
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
  int64_t spin_ns;
  pthread_t *threads;
  kiln_worker *workers;
  pthread_mutex_t lock;
  pthread_cond_t work; /* a job was posted, or stop */
  pthread_cond_t done; /* a job whose caller sleeps has finished */
  kiln_job *head, *tail;
  _Atomic uint64_t posted; /* bumped at every post: what idle workers spin on */
  int sleepers;
  int stop;
};

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
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

static void run_chunk(const kiln_job *job, int64_t chunk, int32_t thread) {
  int64_t *record = job->record ? job->record + 3 * chunk : NULL;
  if (record) {
    record[0] = thread;
    record[1] = now_ns();
  }
  job->fn(job->args, job->bounds[2 * chunk], job->bounds[2 * chunk + 1]);
  if (record) record[2] = now_ns();
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
    int64_t until = now_ns() + pool->spin_ns;
    int posted = 0;
    while (!posted && now_ns() < until) {
      for (int i = 0; i < SPIN_CHECK_EVERY && !posted; i++) {
        CPU_RELAX();
        posted = atomic_load_explicit(&pool->posted, memory_order_relaxed) != seen;
      }
    }
    pthread_mutex_lock(&pool->lock);
    if (!posted && atomic_load_explicit(&pool->posted, memory_order_relaxed) == seen && !pool->stop) {
      pool->sleepers++;
      pthread_cond_wait(&pool->work, &pool->lock);
      pool->sleepers--;
    }
  }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

kiln_pool *kiln_pool_create(int32_t size, int64_t spin_ns) {
  kiln_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return NULL;
  pool->size = size < 1 ? 1 : size;
  pool->spin_ns = spin_ns < 0 ? 0 : spin_ns;
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

static void run_parallel(kiln_pool *pool, kiln_job *job) {
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
  for (;;) {
    pthread_mutex_unlock(&pool->lock);
    run_chunk(job, chunk, 0);
    pthread_mutex_lock(&pool->lock);
    finish_chunk(pool, job);
    if (job->next == job->n_chunks) break;
    chunk = take_chunk(pool, job);
  }
  int waiting = atomic_load_explicit(&job->remaining, memory_order_relaxed) != 0;
  pthread_mutex_unlock(&pool->lock);
  if (!waiting) return;
  int64_t until = now_ns() + pool->spin_ns;
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
}

/* Run every launch of `program` in order with the call's `values` (buffer addresses, symbol values); when
 * `times` is not NULL, store each launch's wall time in seconds there; when `chunks` is not NULL, each chunk's
 * thread, start and end (3 words per chunk, in program order). */
void kiln_run(kiln_pool *pool, const kiln_program *program, const int64_t *values, double *times, int64_t *chunks) {
  const int64_t *arg_index = (const int64_t *)(program->launches + program->n_launches);
  const int64_t *bounds = arg_index + program->n_args;
  void *stack_args[STACK_ARGS];
  void **args = program->n_args <= STACK_ARGS ? stack_args : malloc((size_t)program->n_args * sizeof *args);
  if (!args) abort(); /* out of memory for a few pointers: nothing sensible is left to do */
  for (int64_t i = 0; i < program->n_args; i++) args[i] = (void *)(intptr_t)values[arg_index[i]];
  for (int64_t k = 0; k < program->n_launches; k++) {
    const kiln_launch *launch = &program->launches[k];
    int64_t start = times ? now_ns() : 0;
    kiln_job job = {
        .fn = (kiln_entry)(intptr_t)launch->entry,
        .args = args + launch->first_arg,
        .bounds = bounds + 2 * launch->first_chunk,
        .n_chunks = launch->n_chunks,
        .record = chunks ? chunks + 3 * launch->first_chunk : NULL,
    };
    if (job.n_chunks == 1 || pool->size == 1) {
      for (int64_t c = 0; c < job.n_chunks; c++) run_chunk(&job, c, 0);
    } else {
      run_parallel(pool, &job);
    }
    if (times) times[k] = (double)(now_ns() - start) * 1e-9;
  }
  if (args != stack_args) free(args);
}
