/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An SVG picture of a placement, beside the blocked layout on the same
 * nodes, meant to be read by a person.
 *
 * The last two grid dimensions form a 2-D slice (rows top to bottom, columns
 * left to right; rank r is cell r in the grid's row- or column-major order); grids of three and
 * more dimensions are drawn as one slice per index of the leading
 * dimensions, side by side.  A cell is coloured by its node and, when there
 * is room, carries the node's letter; a heavy line separates neighbouring
 * cells on different nodes (dashed on the border where a periodic dimension
 * wraps); a dot marks a cell with a stencil edge to another node in another
 * slice.  Grids too large to draw one cell per rank (more than
 * SVG_MAX_CELLS, or cells narrower than MIN_CELL pixels) are drawn in
 * blocks of ranks, each in the colour of the node that holds most of its
 * ranks; the figures printed are always those of every rank. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/edges.h"
#include "svg.h"

#define PANEL_W 600.0   /* room for one panel's slices */
#define PANEL_H 600.0
#define MAX_CELL 34.0   /* pixels */
#define MIN_CELL 3.0
#define GAP 12.0        /* between slices */
#define PANEL_GAP 48.0  /* between the two panels */
#define LABEL_H 15.0    /* slice labels */
#define MARGIN 20.0
#define MAX_LEGEND 64
#define WRAP_1D 32      /* a 1-D grid wraps into rows of this many ranks */

/* Tableau's 20 colours, ordered so that consecutive nodes (neighbours in a
 * blocked layout) get different hues. */
static const char *palette[] = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#edc948", "#76b7b2",
    "#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d", "#8cd17d", "#ff9d9a",
    "#d4a6c8", "#f1ce63", "#86bcb6", "#fabfd2", "#d7b5a6", "#79706e",
};
#define NPALETTE ((int)(sizeof(palette) / sizeof(palette[0])))

static void hsl_rgb(double h, double s, double l, int rgb[3])
{
    double c = (1 - fabs(2 * l - 1)) * s, hp = h / 60.0;
    double x = c * (1 - fabs(fmod(hp, 2.0) - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    if (hp < 1) r = c, g = x;
    else if (hp < 2) r = x, g = c;
    else if (hp < 3) g = c, b = x;
    else if (hp < 4) g = x, b = c;
    else if (hp < 5) r = x, b = c;
    else r = c, b = x;
    rgb[0] = (int)lround((r + m) * 255);
    rgb[1] = (int)lround((g + m) * 255);
    rgb[2] = (int)lround((b + m) * 255);
}

/* fill colour of node i, and whether its letter should be dark */
static void node_colour(int i, char out[8], bool *dark_text)
{
    int rgb[3];
    if (i < NPALETTE) {
        snprintf(out, 8, "%s", palette[i]);
        unsigned v = (unsigned)strtoul(palette[i] + 1, NULL, 16);
        rgb[0] = (int)(v >> 16), rgb[1] = (int)((v >> 8) & 255), rgb[2] = (int)(v & 255);
    } else {
        int k = i - NPALETTE;
        hsl_rgb(fmod(k * 137.508, 360.0), 0.55 + 0.2 * (k % 2), 0.45 + 0.15 * (k % 3), rgb);
        snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 255, rgb[1] & 255, rgb[2] & 255);
    }
    *dark_text = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 150;
}

static char node_char(int i)
{
    static const char glyphs[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    return glyphs[i % (int)(sizeof(glyphs) - 1)];
}

/* Heat mode: a block's share of cut edges, white (none) to dark red (all). */
static const char *heat_ramp[] = {"#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b", "#67001f"};
#define NHEAT ((int)(sizeof(heat_ramp) / sizeof(heat_ramp[0])))
static const char *heat_colour(float share)
{
    int k = (int)lroundf(share * (float)(NHEAT - 1));
    return heat_ramp[k < 0 ? 0 : k >= NHEAT ? NHEAT - 1 : k];
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, f);
        }
}

/* ---- layout ----------------------------------------------------------- */
struct layout {
    int d;
    int64_t f[SMP_MAX_DIMS];  /* ranks per drawn cell along each dimension */
    int64_t dd[SMP_MAX_DIMS]; /* drawn cells along each dimension */
    int64_t rows, cols, slices, cells, per_slice;
    int per_row;              /* slices per row of slices */
    double s;                 /* cell size in pixels */
    double w, h;              /* panel size */
    bool aggregated, labels;
};

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static void plan_layout(const smp_grid *g, struct layout *L)
{
    memset(L, 0, sizeof(*L));
    L->d = g->ndims;
    for (int i = 0; i < L->d; i++) {
        L->f[i] = 1;
        L->dd[i] = g->dims[i];
    }
    int last = L->d - 1, prev = L->d - 2;
    for (;;) {
        int64_t cells = 1;
        for (int i = 0; i < L->d; i++)
            cells *= L->dd[i];
        int64_t cols = L->d == 1 ? (L->dd[0] < WRAP_1D ? L->dd[0] : WRAP_1D) : L->dd[last];
        int64_t rows = L->d == 1 ? ceil_div(L->dd[0], WRAP_1D) : L->dd[prev];
        bool too_wide = (double)cols * MIN_CELL > PANEL_W, too_tall = (double)rows * MIN_CELL > PANEL_H;
        if (cells <= SVG_MAX_CELLS && !too_wide && !too_tall) {
            L->cells = cells;
            L->cols = cols;
            L->rows = rows;
            break;
        }
        /* coarsen the dimension with the most drawn cells (the slice's own
         * when it alone is too long) */
        int big = too_wide || prev < 0 ? last : too_tall ? prev : 0;
        if (!too_wide && !too_tall)
            for (int i = 1; i < L->d; i++)
                if (L->dd[i] >= L->dd[big])
                    big = i;
        L->f[big] = L->f[big] < 4 ? L->f[big] + 1 : L->f[big] * 5 / 4;
        L->dd[big] = ceil_div(g->dims[big], L->f[big]);
        L->aggregated = true;
    }
    L->per_slice = L->rows * L->cols;
    L->slices = L->d >= 3 ? L->cells / (L->dd[last] * L->dd[prev]) : 1;
    L->labels = L->slices > 1;
    double best = 0;
    int best_k = 1;
    for (int k = 1; k <= L->slices && k <= 64; k++) {
        int64_t rs = ceil_div(L->slices, k);
        double sw = (PANEL_W - (k - 1) * GAP) / (double)(k * L->cols);
        double sh = (PANEL_H - (double)rs * ((L->labels ? LABEL_H : 0) + GAP)) / (double)(rs * L->rows);
        double s = sw < sh ? sw : sh;
        if (s > best + 1e-9) {
            best = s;
            best_k = k;
        }
    }
    L->per_row = best_k;
    L->s = floor(best > MAX_CELL ? MAX_CELL : best < 1 ? 1 : best);
    int64_t rs = ceil_div(L->slices, L->per_row);
    int64_t in_row = L->slices < L->per_row ? L->slices : L->per_row;
    L->w = (double)in_row * (double)L->cols * L->s + (double)(in_row - 1) * GAP;
    L->h = (double)rs * ((double)L->rows * L->s + (L->labels ? LABEL_H : 0)) + (double)(rs - 1) * GAP;
}

/* drawn-cell coordinates of a cell index (row-major over dd), and back */
static void cell_coords(const struct layout *L, int64_t cell, int64_t *dc)
{
    for (int i = L->d - 1; i >= 0; i--) {
        dc[i] = cell % L->dd[i];
        cell /= L->dd[i];
    }
}

static int64_t cell_index(const struct layout *L, const int64_t *dc)
{
    int64_t c = 0;
    for (int i = 0; i < L->d; i++)
        c = c * L->dd[i] + dc[i];
    return c;
}

/* ---- what each drawn cell shows ------------------------------------- */
struct panel {
    int32_t *node;   /* cells: the node of (most of) its ranks */
    int64_t *count;  /* cells: ranks in it */
    int64_t *first;  /* cells: its first rank */
    bool *cross;     /* cells: a stencil edge to another node in another slice */
    float *cut;      /* cells: share of its ranks' stencil edges that leave their node */
    int64_t *out;    /* nodes: edges leaving */
    smp_score score;
};

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void panel_free(struct panel *p)
{
    free(p->node);
    free(p->count);
    free(p->first);
    free(p->cross);
    free(p->cut);
    free(p->out);
    memset(p, 0, sizeof(*p));
}

/* The node that holds most of a block's n ranks (sorts nodes[]). */
static int32_t most_common(int32_t *nodes, int64_t n)
{
    if (n > 1)
        qsort(nodes, (size_t)n, sizeof(int32_t), cmp_i32);
    int32_t best = nodes[0];
    int64_t best_run = 0, run = 0;
    for (int64_t k = 0; k < n; k++) {
        run = k && nodes[k] == nodes[k - 1] ? run + 1 : 1;
        if (run > best_run) {
            best_run = run;
            best = nodes[k];
        }
    }
    return best;
}

static int panel_fill(struct panel *p, const svg_input *in, const struct layout *L,
                      const int32_t *node_of_rank)
{
    const smp_grid *g = in->grid;
    const smp_stencil *st = in->stencil;
    int nn = in->nodes->count, d = g->ndims;
    memset(p, 0, sizeof(*p));
    int64_t block = 1;
    for (int i = 0; i < d; i++)
        block *= L->f[i];
    int32_t *buf = malloc(sizeof(int32_t) * (size_t)block);
    p->node = malloc(sizeof(int32_t) * (size_t)L->cells);
    p->count = calloc((size_t)L->cells, sizeof(int64_t));
    p->first = malloc(sizeof(int64_t) * (size_t)L->cells);
    p->cross = calloc((size_t)L->cells, sizeof(bool));
    p->cut = calloc((size_t)L->cells, sizeof(float));
    p->out = calloc((size_t)nn + 1, sizeof(int64_t));
    if (!buf || !p->node || !p->count || !p->first || !p->cross || !p->cut || !p->out) {
        free(buf);
        panel_free(p);
        return -1;
    }
    smp_error err;
    if (smp_score_compute(g, st, node_of_rank, nn, &p->score, &err))
        memset(&p->score, 0, sizeof(p->score));
    smp_edge_walk walk;
    if (smp_edge_walk_init(&walk, g, st, false, &err)) {
        smp_edge_walk_free(&walk);
        free(buf);
        panel_free(p);
        return -1;
    }
    int64_t dc[SMP_MAX_DIMS], lo[SMP_MAX_DIMS], hi[SMP_MAX_DIMS], c[SMP_MAX_DIMS];
    for (int64_t cell = 0; cell < L->cells; cell++) {
        cell_coords(L, cell, dc);
        for (int i = 0; i < d; i++) {
            lo[i] = c[i] = dc[i] * L->f[i];
            hi[i] = lo[i] + L->f[i] < g->dims[i] ? lo[i] + L->f[i] : g->dims[i];
        }
        p->first[cell] = smp_grid_rank(g, lo);
        int64_t n = 0, edges = 0, cut = 0;
        for (;;) { /* every rank of the block, odometer over [lo, hi) */
            int64_t r = smp_grid_rank(g, c);
            buf[n++] = node_of_rank[r];
            for (int k = 0; k < st->count; k++) {
                const int32_t *off = st->offsets + (size_t)k * d;
                int64_t nb = smp_edge_target(&walk, c, r, k);
                edges += nb >= 0;
                if (nb < 0 || node_of_rank[nb] == node_of_rank[r])
                    continue;
                cut++;
                p->out[node_of_rank[r]]++;
                for (int i = 0; i < d - 2; i++)
                    if (off[i])
                        p->cross[cell] = true;
            }
            int i = d - 1;
            while (i >= 0 && ++c[i] == hi[i]) {
                c[i] = lo[i];
                i--;
            }
            if (i < 0)
                break;
        }
        p->count[cell] = n;
        p->cut[cell] = edges ? (float)cut / (float)edges : 0.0f;
        p->node[cell] = most_common(buf, n);
    }
    smp_edge_walk_free(&walk);
    free(buf);
    return 0;
}

/* ---- drawing ---------------------------------------------------------- */
static void cell_xy(const struct layout *L, int64_t cell, double x0, double y0, double *x, double *y,
                    int64_t *slice)
{
    int64_t sl = cell / L->per_slice, k = cell % L->per_slice;
    double sx = x0 + (double)(sl % L->per_row) * ((double)L->cols * L->s + GAP);
    double sy = y0 + (double)(sl / L->per_row) * ((double)L->rows * L->s + (L->labels ? LABEL_H : 0) + GAP) +
                (L->labels ? LABEL_H : 0);
    *x = sx + (double)(k % L->cols) * L->s;
    *y = sy + (double)(k / L->cols) * L->s;
    if (slice)
        *slice = sl;
}

/* the cell next to cell along drawn dimension dim (+1), wrapping when
 * periodic; -1 at a border */
static int64_t next_cell(const struct layout *L, const smp_grid *g, int64_t cell, int dim, bool *wrapped)
{
    int64_t dc[SMP_MAX_DIMS] = {0};
    cell_coords(L, cell, dc);
    *wrapped = false;
    if (++dc[dim] == L->dd[dim]) {
        if (!g->periods[dim] || L->dd[dim] < 2)
            return -1;
        dc[dim] = 0;
        *wrapped = true;
    }
    return cell_index(L, dc);
}

/* node boundaries (inside a slice solid; across a periodic border, dashed
 * on both borders) and the dots of edges to other slices */
static void draw_boundaries(FILE *f, const svg_input *in, const struct layout *L,
                            const struct panel *p, double x0, double y0)
{
    const smp_grid *g = in->grid;
    double s = L->s;
    int d = L->d;
    double lw = s >= 14 ? 3.0 : s >= 6 ? 2.2 : 1.4;
    int dims_drawn[2] = {d - 1, d - 2};
    fprintf(f, "<g class=\"cut\" stroke=\"#1a1a1a\" stroke-width=\"%.1f\" stroke-linecap=\"square\">\n", lw);
    for (int64_t cell = 0; cell < L->cells; cell++) {
        for (int k = 0; k < 2 && k < d; k++) {
            bool wrapped;
            int64_t nb = next_cell(L, g, cell, dims_drawn[k], &wrapped);
            if (nb < 0 || wrapped || p->node[nb] == p->node[cell])
                continue;
            double x, y;
            cell_xy(L, cell, x0, y0, &x, &y, NULL);
            if (k == 0)
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x + s, y, x + s, y + s);
            else
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, y + s, x + s, y + s);
        }
    }
    fputs("</g>\n", f);
    fprintf(f, "<g class=\"wrap\" stroke=\"#1a1a1a\" stroke-width=\"%.1f\" stroke-dasharray=\"%.1f,%.1f\">\n",
            lw, s / 3 + 1, s / 3 + 1);
    for (int64_t cell = 0; cell < L->cells; cell++)
        for (int k = 0; k < 2 && k < d; k++) {
            bool wrapped;
            int64_t nb = next_cell(L, g, cell, dims_drawn[k], &wrapped);
            if (nb < 0 || !wrapped || p->node[nb] == p->node[cell])
                continue;
            double x, y, nx, ny;
            cell_xy(L, cell, x0, y0, &x, &y, NULL);
            cell_xy(L, nb, x0, y0, &nx, &ny, NULL);
            if (k == 0) {
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x + s, y, x + s, y + s);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", nx, ny, nx, ny + s);
            } else {
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, y + s, x + s, y + s);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", nx, ny, nx + s, ny);
            }
        }
    fputs("</g>\n", f);
    if (d >= 3 && s >= 6) {
        fputs("<g class=\"across\" fill=\"#1a1a1a\">\n", f);
        for (int64_t cell = 0; cell < L->cells; cell++)
            if (p->cross[cell]) {
                double x, y;
                cell_xy(L, cell, x0, y0, &x, &y, NULL);
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>\n", x + s * 0.8, y + s * 0.2,
                        s >= 14 ? s * 0.09 : 1.1);
            }
        fputs("</g>\n", f);
    }
}

static void draw_panel(FILE *f, const svg_input *in, const struct layout *L, const struct panel *p,
                       double x0, double y0, const char *id, bool heat)
{
    const smp_grid *g = in->grid;
    double s = L->s;
    int d = L->d;
    fprintf(f, "<g id=\"%s\">\n", id);
    /* slice labels */
    if (L->labels)
        for (int64_t sl = 0; sl < L->slices; sl++) {
            double x, y;
            int64_t dc[SMP_MAX_DIMS];
            cell_xy(L, sl * L->per_slice, x0, y0, &x, &y, NULL);
            cell_coords(L, sl * L->per_slice, dc);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"slice\">", x, y - 4);
            for (int i = 0; i < d - 2; i++) {
                int64_t a = dc[i] * L->f[i], b = a + L->f[i] - 1;
                if (b >= g->dims[i])
                    b = g->dims[i] - 1;
                if (a == b)
                    fprintf(f, "%sd%d=%lld", i ? ", " : "", i, (long long)a);
                else
                    fprintf(f, "%sd%d=%lld..%lld", i ? ", " : "", i, (long long)a, (long long)b);
            }
            fputs("</text>\n", f);
        }
    /* cells */
    bool letters = s >= 14 && !heat;
    fprintf(f, "<g class=\"cells\"%s>\n", s >= 8 ? " stroke=\"#ffffff\" stroke-width=\"0.6\"" : "");
    for (int64_t cell = 0; cell < L->cells; cell++) {
        double x, y;
        cell_xy(L, cell, x0, y0, &x, &y, NULL);
        char col[8];
        bool dark;
        int32_t n = p->node[cell];
        node_colour(n, col, &dark);
        fprintf(f,
                "<rect class=\"cell\" data-rank=\"%lld\" data-count=\"%lld\" data-node=\"%d\" "
                "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                (long long)p->first[cell], (long long)p->count[cell], n, x, y, s, s,
                heat ? heat_colour(p->cut[cell]) : col);
        if (heat)
            fprintf(f, "%lld ranks from %lld, %.0f%% of their edges leave their node: ",
                    (long long)p->count[cell], (long long)p->first[cell], 100.0 * p->cut[cell]);
        else if (p->count[cell] == 1)
            fprintf(f, "rank %lld: ", (long long)p->first[cell]);
        else
            fprintf(f, "%lld ranks from %lld, mostly on ", (long long)p->count[cell],
                    (long long)p->first[cell]);
        xml_text(f, in->nodes->names[n]);
        fputs("</title></rect>\n", f);
        if (letters)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"letter\" font-size=\"%.0f\" fill=\"%s\">%c</text>\n",
                    x + s / 2, y + s * 0.68, s * 0.48, dark ? "#1a1a1a" : "#ffffff", node_char(n));
    }
    fputs("</g>\n", f);
    if (!heat)
        draw_boundaries(f, in, L, p, x0, y0);
    /* slice outlines */
    for (int64_t sl = 0; sl < L->slices; sl++) {
        double x, y;
        cell_xy(L, sl * L->per_slice, x0, y0, &x, &y, NULL);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#555555\" stroke-width=\"1\"/>\n",
                x, y, (double)L->cols * s, (double)L->rows * s);
    }
    fputs("</g>\n", f);
}

static void legend(FILE *f, const svg_input *in, const struct panel *pp, const struct panel *pb,
                   double y, double width, int cols)
{
    int nn = in->nodes->count, shown = nn < MAX_LEGEND ? nn : MAX_LEGEND;
    double colw = (width - 2 * MARGIN) / cols;
    int64_t *ranks = calloc((size_t)nn + 1, sizeof(int64_t));
    for (int64_t r = 0; ranks && r < in->grid->size; r++)
        ranks[in->plan[r]]++;
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"head\">nodes: ranks, stencil edges leaving the node%s</text>\n",
            MARGIN, y, pb ? " (blocked in brackets)" : "");
    y += 20;
    for (int i = 0; i < shown; i++) {
        /* column by column, so that the nodes read in order downwards */
        int per_col = (shown + cols - 1) / cols;
        double lx = MARGIN + (i / per_col) * colw, ly = y + (i % per_col) * 19;
        char col[8];
        bool dark;
        node_colour(i, col, &dark);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"15\" height=\"15\" fill=\"%s\"/>\n", lx, ly - 12, col);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"letter\" font-size=\"10\" fill=\"%s\">%c</text>\n",
                lx + 7.5, ly - 1, dark ? "#1a1a1a" : "#ffffff", node_char(i));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">", lx + 21, ly);
        xml_text(f, in->nodes->names[i]);
        fprintf(f, ": %lld ranks, %lld out", ranks ? (long long)ranks[i] : 0LL, (long long)pp->out[i]);
        if (pb)
            fprintf(f, " (%lld)", (long long)pb->out[i]);
        fputs("</text>\n", f);
    }
    if (nn > shown)
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"legend\">... and %d more nodes</text>\n", MARGIN,
                y + ((shown + cols - 1) / cols) * 19, nn - shown);
    free(ranks);
}

static void heat_legend(FILE *f, const svg_input *in, const struct panel *pp, const struct panel *pb,
                        double y)
{
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"head\">share of a block's stencil edges "
               "that leave their node</text>\n", MARGIN, y);
    y += 20;
    for (int k = 0; k < NHEAT; k++) {
        double x = MARGIN + k * 70;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"15\" fill=\"%s\" stroke=\"#888888\" stroke-width=\"0.5\"/>\n",
                x, y - 12, heat_ramp[k]);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">%.0f%%</text>\n", x + 29, y,
                100.0 * k / (NHEAT - 1));
    }
    y += 19;
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"legend\">%d nodes; the busiest sends %lld edges (",
            MARGIN, y, in->nodes->count, (long long)pp->score.j_max);
    xml_text(f, in->nodes->names[pp->score.j_max_node]);
    fputs(")", f);
    if (pb) {
        fprintf(f, ", blocked %lld (", (long long)pb->score.j_max);
        xml_text(f, in->nodes->names[pb->score.j_max_node]);
        fputs(")", f);
    }
    fputs("</text>\n", f);
}

/* The explanations under the picture, wrapped at width characters. */
#define MAX_NOTE_LINES 16
#define NOTE_CHARS 200
static int wrap(const char *text, bool warn, int width, char lines[][NOTE_CHARS + 1], bool *warns,
                int n)
{
    if (width > NOTE_CHARS)
        width = NOTE_CHARS;
    while (*text && n < MAX_NOTE_LINES) {
        size_t len = strlen(text), cut = len;
        if ((int)len > width) {
            cut = (size_t)width;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = (size_t)width;
        }
        snprintf(lines[n], NOTE_CHARS + 1, "%.*s", (int)cut, text);
        warns[n++] = warn;
        text += cut;
        while (*text == ' ')
            text++;
    }
    return n;
}

static int notes_write(const smp_grid *g, const struct layout *L, bool heat, int width,
                       char lines[][NOTE_CHARS + 1], bool *warns)
{
    char buf[600];
    int n = 0, d = g->ndims;
    snprintf(buf, sizeof(buf),
             "Rank r is cell r in %s order: the last dimension runs left to right%s.%s",
             smp_order_name(g->order), d >= 2 ? ", the one before it top to bottom" : "",
             heat ? "" : " Letters and colours name the nodes.");
    n = wrap(buf, false, width, lines, warns, n);
    if (heat)
        snprintf(buf, sizeof(buf), "J_sum counts the directed stencil edges between nodes, J_max "
                                   "the most that leave one node.");
    else
        snprintf(buf, sizeof(buf),
                 "Heavy line: neighbouring ranks on different nodes%s. J_sum counts the directed "
                 "stencil edges between nodes, J_max the most that leave one node.",
                 (g->periods[d - 1] || (d >= 2 && g->periods[d - 2]))
                     ? " (dashed on the border: the periodic wrap-around)"
                     : "");
    n = wrap(buf, false, width, lines, warns, n);
    if (d >= 3) {
        snprintf(buf, sizeof(buf),
                 "%d-D: one slice per index of d0%s, side by side%s.", d,
                 d > 3 ? " to d(last-2)" : "",
                 heat ? "" : "; a dot marks a cell with a stencil edge to another node in another slice");
        n = wrap(buf, false, width, lines, warns, n);
    }
    if (d == 1) {
        snprintf(buf, sizeof(buf),
                 "1-D: the ranks wrap into rows of %d; only boundaries along a row are drawn.",
                 WRAP_1D);
        n = wrap(buf, false, width, lines, warns, n);
    }
    if (L->aggregated) {
        size_t off = (size_t)snprintf(buf, sizeof(buf),
                                      "%lld ranks are too many for one cell each: a cell is a "
                                      "block of up to ",
                                      (long long)g->size);
        for (int i = 0; i < d && off < sizeof(buf); i++)
            off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%lld", i ? "x" : "",
                                    (long long)L->f[i]);
        if (off < sizeof(buf))
            snprintf(buf + off, sizeof(buf) - off, "%s",
                     heat ? " ranks, coloured by the share of its ranks' stencil edges that leave "
                            "their node (a node holds fewer ranks than a block, so node colours "
                            "would be noise); the figures count every rank."
                          : " ranks in the colour of the node that holds most of them; the "
                            "figures count every rank.");
        n = wrap(buf, true, width, lines, warns, n);
    }
    return n;
}

/* The subtitle: the grid, the stencil, the allocation, and what the plan
 * saves over blocked when both are drawn. */
static void subtitle(char *sub, size_t size, const svg_input *in, const struct panel *pp,
                     const struct panel *pb)
{
    const smp_grid *g = in->grid;
    size_t off = (size_t)snprintf(sub, size, "grid ");
    for (int i = 0; i < g->ndims && off < size; i++)
        off += (size_t)snprintf(sub + off, size - off, "%s%lld%s", i ? "\xc3\x97" : "",
                                (long long)g->dims[i], g->periods[i] ? " (periodic)" : "");
    if (off < size)
        off += (size_t)snprintf(sub + off, size - off,
                                ", stencil %.64s (%d offsets), %lld ranks on %d nodes",
                                in->stencil->name[0] ? in->stencil->name : "custom",
                                in->stencil->count, (long long)g->size, in->nodes->count);
    if (in->blocked && pb->score.j_sum > 0 && off < size)
        snprintf(sub + off, size - off, "; inter-node edges %lld, blocked %lld: %lld fewer (%.0f%%)",
                 (long long)pp->score.j_sum, (long long)pb->score.j_sum,
                 (long long)(pb->score.j_sum - pp->score.j_sum),
                 100.0 * (double)(pb->score.j_sum - pp->score.j_sum) / (double)pb->score.j_sum);
}

/* The XML declaration, the svg element, the style sheet, the description
 * and the white background. */
static void svg_head(FILE *f, const smp_grid *g, const struct layout *L, double width, double height)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            width, height, width, height);
    fputs("<style>.title{font-size:17px;font-weight:bold}.sub{font-size:13px;fill:#222222}"
          ".head{font-size:14px;font-weight:bold}.slice{font-size:11px;fill:#333333}"
          ".letter{text-anchor:middle;font-weight:bold}.legend{font-size:12px}"
          ".note{font-size:12px;fill:#333333}.warn{font-size:12px;fill:#a00000;font-weight:bold}</style>\n",
          f);
    fprintf(f, "<desc>stencil-map placement: %lld ranks, %lld drawn cells per panel%s</desc>\n",
            (long long)g->size, (long long)L->cells, L->aggregated ? " (blocks of ranks)" : "");
    fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width, height);
}

/* Lines of text down from y: the first step, then step between lines;
 * class cls, or with warn per line "warn" or "note".  Returns the last y. */
static double text_lines(FILE *f, double y, double first, double step, const char *cls,
                         char lines[][NOTE_CHARS + 1], int n, const bool *warn)
{
    for (int i = 0; i < n; i++) {
        y += i ? step : first;
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"%s\">", MARGIN, y,
                warn ? (warn[i] ? "warn" : "note") : cls);
        xml_text(f, lines[i]);
        fputs("</text>\n", f);
    }
    return y;
}

/* One panel: its heading, its figures, its drawing. */
static void panel_write(FILE *f, const svg_input *in, const struct layout *L, const struct panel *P,
                        int blocked, double x0, double top, double panel_head, bool heat)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"head\">", x0, top);
    xml_text(f, blocked ? "blocked (Slurm's default)" : in->plan_label ? in->plan_label : "placement");
    fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" class=\"sub\">", x0, top + 17);
    if (smp_stencil_weighted(in->stencil)) /* the objective first */
        fprintf(f, "weighted J_sum %g, J_max %g; ", P->score.w_sum, P->score.w_max);
    fprintf(f, "J_sum %lld, J_max %lld</text>\n", (long long)P->score.j_sum, (long long)P->score.j_max);
    draw_panel(f, in, L, P, x0, top + panel_head + 4, blocked ? "blocked" : "plan", heat);
}

int svg_write(FILE *f, const svg_input *in)
{
    const smp_grid *g = in->grid;
    int nn = in->nodes->count;
    struct layout L;
    plan_layout(g, &L);
    struct panel pp, pb;
    memset(&pb, 0, sizeof(pb));
    if (panel_fill(&pp, in, &L, in->plan)) {
        errno = ENOMEM;
        return -1;
    }
    if (in->blocked && panel_fill(&pb, in, &L, in->blocked)) {
        panel_free(&pp);
        errno = ENOMEM;
        return -1;
    }
    int64_t block = 1;
    for (int i = 0; i < g->ndims; i++)
        block *= L.f[i];
    /* blocks larger than half a node's share: show where edges are cut */
    bool heat = L.aggregated && (double)g->size / nn < 2.0 * (double)block;
    int panels = in->blocked ? 2 : 1;
    double pw = L.w < 300 ? 300 : L.w;
    double width = MARGIN * 2 + panels * pw + (panels - 1) * PANEL_GAP;
    if (width < 720)
        width = 720;
    /* title and subtitle, wrapped to the picture's width */
    char title_line[MAX_NOTE_LINES][NOTE_CHARS + 1], sub_line[MAX_NOTE_LINES][NOTE_CHARS + 1];
    bool unused[MAX_NOTE_LINES];
    int ntitle = wrap(in->title ? in->title : "stencil-map placement", false,
                      (int)((width - 2 * MARGIN) / 10.5), title_line, unused, 0);
    char sub[900];
    subtitle(sub, sizeof(sub), in, &pp, &pb);
    int nsub = wrap(sub, false, (int)((width - 2 * MARGIN) / 7.4), sub_line, unused, 0);
    double top = 10 + 18 + (ntitle - 1) * 21 + 4 + nsub * 17 + 35;
    double panel_head = 24 + (L.labels ? 4 : 0);
    int cols = (int)((width - 2 * MARGIN) / 290);
    cols = cols < 1 ? 1 : cols;
    int shown = heat ? 0 : nn < MAX_LEGEND ? nn : MAX_LEGEND;
    double legend_y = top + panel_head + L.h + 34;
    double notes_y = heat ? legend_y + 20 + 2 * 19
                          : legend_y + 20 + ((shown + cols - 1) / cols + (nn > shown)) * 19;
    char note_line[MAX_NOTE_LINES][NOTE_CHARS + 1];
    bool note_warn[MAX_NOTE_LINES];
    int nnotes = notes_write(g, &L, heat, (int)((width - 2 * MARGIN) / 6.8), note_line, note_warn);
    double height = notes_y + nnotes * 17 + 14;

    svg_head(f, g, &L, width, height);
    double ty = 10;
    ty = text_lines(f, ty, 18, 21, "title", title_line, ntitle, NULL) + 4;
    text_lines(f, ty, 17, 17, "sub", sub_line, nsub, NULL);
    for (int p = 0; p < panels; p++)
        panel_write(f, in, &L, p ? &pb : &pp, p, MARGIN + p * (pw + PANEL_GAP), top, panel_head, heat);
    if (heat)
        heat_legend(f, in, &pp, in->blocked ? &pb : NULL, legend_y);
    else
        legend(f, in, &pp, in->blocked ? &pb : NULL, legend_y, width, cols);
    text_lines(f, notes_y, 17, 17, NULL, note_line, nnotes, note_warn);
    fputs("</svg>\n", f);
    panel_free(&pp);
    panel_free(&pb);
    return ferror(f) ? -1 : 0;
}

int svg_write_file(const char *path, const svg_input *in)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "stencil-map: --svg %s: cannot create: %s\n", path, strerror(errno));
        return SMP_ERR_SYSTEM;
    }
    int rc = svg_write(f, in);
    if (f != stdout && fclose(f) != 0)
        rc = -1;
    else if (f == stdout && fflush(f) != 0)
        rc = -1;
    if (rc) {
        fprintf(stderr, "stencil-map: --svg %s: write failed: %s\n", path, strerror(errno));
        return SMP_ERR_SYSTEM;
    }
    return 0;
}
