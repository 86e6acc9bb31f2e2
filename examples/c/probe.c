/*
 * probe.c: probe damka's endgame tables from C.
 *
 * Opens a tables directory, probes a position given as FEN (result, distance, result under
 * the move-count rules, every legal move with its results, best first), then probes the
 * same position from bitboards, the way an engine would in its search.
 *
 *   cargo build --release -p damka-capi
 *   cc -o probe examples/c/probe.c -Iinclude -Ltarget/release -ldamka
 *   LD_LIBRARY_PATH=target/release ./probe tables english "W:WK19,K23:BK28,12"
 *
 * (or link the static library: cc -o probe examples/c/probe.c -Iinclude
 *  target/release/libdamka.a -lpthread -ldl -lm)
 */
#include <stdio.h>
#include <stdlib.h>

#include "damka.h"

static const char *result_name(int wdl) {
    return wdl > 0 ? "win" : wdl < 0 ? "loss" : "draw";
}

/* A result under the move-count rules, as damka_probe_rules gives it (2 ... -2). */
static const char *rule_name(int category) {
    static const char *names[] = {"loss", "blessed-loss", "draw", "cursed-win", "win"};
    return names[category + 2];
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s TABLES_DIR VARIANT FEN\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *variant = argv[2], *fen = argv[3];

    damka_tablebase *tb = damka_open(dir);
    if (tb == NULL) {
        fprintf(stderr, "damka_open: %s\n", damka_last_error());
        return 1;
    }

    /* The result and the distance, from FEN. */
    int wdl;
    if (damka_probe_wdl(tb, variant, fen, &wdl) != DAMKA_OK) {
        fprintf(stderr, "damka_probe_wdl: %s\n", damka_last_error());
        damka_close(tb);
        return 1;
    }
    printf("result %s\n", result_name(wdl));
    int dtw;
    int status = damka_probe_dtw(tb, variant, fen, &dtw);
    if (status == DAMKA_OK) {
        printf("dtw %d\n", dtw);
    } else if (status != DAMKA_DRAW) {
        fprintf(stderr, "damka_probe_dtw: %s\n", damka_last_error());
        damka_close(tb);
        return 1;
    }
    /* The result under the variant's default move-count rules, the counts just started
       (tables built without rule results have none: nothing is printed). */
    int category;
    int has_rules = damka_probe_rules(tb, variant, fen, 0, 0, &category) == DAMKA_OK;
    if (has_rules)
        printf("rules %s\n", rule_name(category));
    /* Plies to the next capture or man's move, the winner hastening to one that keeps the
       win (a draw has none either). */
    int dtc;
    status = damka_probe_dtc(tb, variant, fen, &dtc);
    if (status == DAMKA_OK) {
        printf("dtc %d\n", dtc);
    } else if (status != DAMKA_DRAW) {
        fprintf(stderr, "damka_probe_dtc: %s\n", damka_last_error());
        damka_close(tb);
        return 1;
    }

    /* Every legal move with its result for the side playing it, best first. */
    damka_move_list *moves;
    if (damka_moves(tb, variant, fen, &moves) != DAMKA_OK) {
        fprintf(stderr, "damka_moves: %s\n", damka_last_error());
        damka_close(tb);
        return 1;
    }
    for (size_t i = 0; i < moves->len; i++) {
        const damka_move *m = &moves->moves[i];
        if (m->wdl == 0)
            printf("%s draw", m->text);
        else
            printf("%s %s %d", m->text, result_name(m->wdl), m->dtw);
        if (has_rules && m->rules != DAMKA_NO_RULES)
            printf(" rules %s", rule_name(m->rules));
        printf("\n");
    }
    damka_move_list_free(moves);

    /* The same position as bitboards, probed as an engine would: first the plain probe
     * (it may read the disk), then the conditional one, which answers from memory only. */
    damka_position pos;
    int number;
    if (damka_position_from_fen(variant, fen, &pos) != DAMKA_OK ||
        damka_variant_from_name(variant, &number) != DAMKA_OK) {
        fprintf(stderr, "%s\n", damka_last_error());
        damka_close(tb);
        return 1;
    }
    printf("bitboards white %#llx black %#llx kings %#llx, %s to move\n",
           (unsigned long long)pos.white, (unsigned long long)pos.black,
           (unsigned long long)pos.kings, pos.side == DAMKA_WHITE ? "white" : "black");
    int bits_wdl, bits_dtw;
    if (damka_probe_position(tb, number, &pos, &bits_wdl, &bits_dtw) != DAMKA_OK) {
        fprintf(stderr, "damka_probe_position: %s\n", damka_last_error());
        damka_close(tb);
        return 1;
    }
    printf("bitboard probe: %s, dtw %d\n", result_name(bits_wdl), bits_dtw);
    status = damka_probe_position_cached(tb, number, &pos, &bits_wdl, NULL);
    if (status == DAMKA_OK)
        printf("conditional probe: %s (from memory)\n", result_name(bits_wdl));
    else if (status == DAMKA_NOT_IN_MEMORY)
        printf("conditional probe: not in memory\n");
    else
        fprintf(stderr, "damka_probe_position_cached: %s\n", damka_last_error());

    /* A bad FEN is an error code with a message, never a crash. */
    if (damka_probe_wdl(tb, variant, "W:W99:B1", &wdl) != DAMKA_OK)
        printf("W:W99:B1: %s\n", damka_last_error());

    damka_close(tb);
    return 0;
}
