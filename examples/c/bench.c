/*
 * bench.c: how many bitboard probes a second libdamka answers on one thread, with every
 * block they need already in memory (an engine's inner loop).
 *
 * Random English positions of 4 pieces (any split of men and kings between the sides,
 * either side to move, captures included: they are resolved by a small search, as every
 * probe does) are drawn once, probed once to bring their blocks into the cache, then
 * probed again and again:
 *   - damka_probe_position, win/draw/loss only (dtw NULL);
 *   - damka_probe_position with the distance;
 *   - damka_probe_position_cached (the conditional form), win/draw/loss only.
 * Each line gives the wall-clock rate and the rate over the thread's CPU time (the same
 * on an idle machine; the second leaves out the time other processes had the core).
 *
 * Build and run (tables from `damka generate --variant english --pieces 4 --tables DIR`):
 *   cargo build --release -p damka-capi
 *   cc -O2 -o bench examples/c/bench.c -Iinclude target/release/libdamka.a -lpthread -ldl -lm
 *   ./bench DIR [POSITIONS] [ROUNDS]
 */
#define _POSIX_C_SOURCE 199309L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "damka.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

/* A number in 0..n-1 (xorshift64*). */
static uint32_t below(uint32_t n) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32) % n;
}

static double seconds_of(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef int (*probe_fn)(const damka_tablebase *, int, const damka_position *, int *, int *);

/* Probes every position `rounds` times; prints and returns the probes a second. */
static double run(const char *name, probe_fn probe, const damka_tablebase *tb,
                  const damka_position *positions, size_t n, int rounds, int with_dtw) {
    long long checksum = 0;
    double start = seconds_of(CLOCK_MONOTONIC), start_cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID);
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            int wdl = 0, dtw = 0;
            if (probe(tb, DAMKA_ENGLISH, &positions[i], &wdl, with_dtw ? &dtw : NULL) != DAMKA_OK) {
                fprintf(stderr, "%s failed: %s\n", name, damka_last_error());
                exit(1);
            }
            checksum += wdl + dtw;
        }
    }
    double seconds = seconds_of(CLOCK_MONOTONIC) - start;
    double cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID) - start_cpu;
    double probes = (double)n * rounds;
    printf("%-36s %zu x %d: %.3f s, %.1f M probes/s (on CPU %.3f s: %.1f M/s) [checksum %lld]\n",
           name, n, rounds, seconds, probes / seconds / 1e6, cpu, probes / cpu / 1e6, checksum);
    return probes / seconds;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s TABLES_DIR [POSITIONS] [ROUNDS]\n", argv[0]);
        return 2;
    }
    size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 1000000;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    damka_tablebase *tb = damka_open(argv[1]);
    if (!tb) {
        fprintf(stderr, "damka_open: %s\n", damka_last_error());
        return 1;
    }
    /* The bits of English squares 1-32. */
    int bit[33];
    for (int sq = 1; sq <= 32; sq++) {
        char name[4];
        snprintf(name, sizeof name, "%d", sq);
        if (damka_square_bit(DAMKA_ENGLISH, name, &bit[sq]) != DAMKA_OK) {
            fprintf(stderr, "damka_square_bit: %s\n", damka_last_error());
            return 1;
        }
    }
    damka_position *positions = malloc(n * sizeof *positions);
    size_t drawn = 0, rejected = 0;
    while (drawn < n) {
        damka_position p = {0, 0, 0, below(2) ? DAMKA_BLACK : DAMKA_WHITE};
        int white_count = 1 + (int)below(3); /* 1-3 white pieces, the rest black */
        for (int k = 0; k < 4; k++) {
            uint64_t sq;
            do {
                sq = 1ull << bit[1 + below(32)];
            } while ((p.white | p.black) & sq);
            if (k < white_count)
                p.white |= sq;
            else
                p.black |= sq;
            if (below(2))
                p.kings |= sq;
        }
        /* A man on its crowning row is not a position: draw again. Any other failure (a
         * table missing, or of another format version) ends the bench: it would otherwise
         * time only the positions that need no table. The first probe also brings the
         * blocks into memory. */
        int wdl;
        int status = damka_probe_position(tb, DAMKA_ENGLISH, &p, &wdl, NULL);
        if (status == DAMKA_ERR_POSITION) {
            rejected++;
            continue;
        }
        if (status != DAMKA_OK) {
            fprintf(stderr, "damka_probe_position: %s\n", damka_last_error());
            return 1;
        }
        int dtw;
        if (damka_probe_position(tb, DAMKA_ENGLISH, &p, &wdl, &dtw) != DAMKA_OK) {
            fprintf(stderr, "damka_probe_position: %s\n", damka_last_error());
            return 1;
        }
        positions[drawn++] = p;
    }
    printf("%zu random English 4-piece positions (%zu draws rejected: a man on its crowning row)\n",
           n, rejected);
    run("damka_probe_position (wdl)", damka_probe_position, tb, positions, n, rounds, 0);
    run("damka_probe_position (wdl + dtw)", damka_probe_position, tb, positions, n, rounds, 1);
    run("damka_probe_position_cached (wdl)", damka_probe_position_cached, tb, positions, n, rounds,
        0);
    free(positions);
    damka_close(tb);
    return 0;
}
