/* stats_out.c — a sweep's statistics as TSV (for gnuplot) and JSON. */
#include "cli.h"
#include "stats.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

/* "-": not defined (one spelling of missing in every TSV); %.17g
 * round-trips a double, for readers that recompute. */
static void num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("\t-", f);
	else
		fprintf(f, "\t%.17g", v);
}

void stats_write_tsv(FILE *f, const struct stats *st)
{
	fputs("trace\tmemory_limit\tmemory_mib\tnode_memory\tswap\tpolicy\tswappiness\tmetric\t"
	      "replicates\tn\truns\tmean\tsd\tci_low\tci_high\tseed_sd\tbaseline\ttest\tmethod\t"
	      "pairs\tdiff\tdiff_ci_low\tdiff_ci_high\trel_diff\tt\tdf\tp\tp_holm\t"
	      "significant\tcohens_d\twilcoxon_v\twilcoxon_p\twilcoxon_p_holm\tfamily\n", f);
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct stats_row *r = &st->rows[i];
		const struct stats_group *g = &st->groups[r->group];
		fprintf(f, "%s\t%" PRIu64 "\t%.17g\t", g->trace, g->memory_limit,
			g->memory_limit / 1048576.0);
		if (g->node_memory)
			fprintf(f, "%" PRIu64, g->node_memory);
		else
			fputc('-', f);
		fprintf(f, "\t%s\t%s\t", g->swap, g->policy);
		if (g->swappiness >= 0)
			fprintf(f, "%d", g->swappiness);
		else
			fputc('-', f);
		fprintf(f, "\t%s\t%s\t%zu\t%zu", st->metrics[r->metric], stats_rep_name(r->rep), r->n,
			r->runs);
		num(f, r->mean);
		num(f, r->sd);
		num(f, r->ci_low);
		num(f, r->ci_high);
		num(f, r->seed_sd);
		fprintf(f, "\t%s\t%s\t%s\t%zu", r->base >= 0 ? st->groups[st->rows[r->base].group].policy : "-",
			stats_test_name(r->test), r->base >= 0 ? stats_method_name(r->method) : "-",
			r->pairs);
		num(f, r->diff);
		num(f, r->diff_lo);
		num(f, r->diff_hi);
		num(f, r->rel_diff);
		num(f, r->t);
		num(f, r->df);
		num(f, r->p);
		num(f, r->p_holm);
		fprintf(f, "\t%d", r->significant);
		num(f, r->d);
		num(f, r->w_v);
		num(f, r->w_p);
		num(f, r->w_p_holm);
		fprintf(f, "\t%d\n", r->in_family);
	}
}

static void jnum(FILE *f, const char *key, double v, int comma)
{
	if (isnan(v) || isinf(v))
		fprintf(f, "\"%s\": null", key);
	else
		fprintf(f, "\"%s\": %.17g", key, v);
	if (comma)
		fputs(", ", f);
}

void stats_write_json(FILE *f, const struct stats *st)
{
	fprintf(f, "{\"conf_level\": %g, \"alpha\": %g, \"correction\": \"holm\", "
		"\"family\": ", st->conf_level, st->alpha);
	if (st->all_metrics) {
		fputs("\"all\"", f);
	} else {
		fputs("[", f);
		for (size_t i = 0; i < stats_nr_headline; i++) {
			cli_json_str(f, stats_headline[i]);
			fputs(", ", f);
		}
		cli_json_str(f, st->outcome);
		fputs("]", f);
	}
	fprintf(f, ", \"tests\": %zu, \"tested\": %zu, \"results\": %zu, \"missing\": %zu, \"rows\": [",
		st->nr_tests, st->nr_tested, st->nr_results, st->nr_missing);
	for (size_t i = 0; i < st->nr_rows; i++) {
		const struct stats_row *r = &st->rows[i];
		const struct stats_group *g = &st->groups[r->group];
		fputs(i ? ",\n  {" : "\n  {", f);
		fputs("\"trace\": ", f);
		cli_json_str(f, g->trace);
		fprintf(f, ", \"memory_limit\": %" PRIu64 ", \"node_memory\": ", g->memory_limit);
		if (g->node_memory)
			fprintf(f, "%" PRIu64, g->node_memory);
		else
			fputs("null", f);
		fputs(", \"swap\": ", f);
		if (g->swap[0] && g->swap[0] != '-')
			cli_json_str(f, g->swap);
		else
			fputs("null", f);
		fputs(", \"policy\": ", f);
		cli_json_str(f, g->policy);
		if (g->swappiness >= 0)
			fprintf(f, ", \"swappiness\": %d", g->swappiness);
		else
			fputs(", \"swappiness\": null", f);
		fputs(", \"metric\": ", f);
		cli_json_str(f, st->metrics[r->metric]);
		fprintf(f, ", \"replicates\": \"%s\", \"n\": %zu, \"runs\": %zu, ", stats_rep_name(r->rep),
			r->n, r->runs);
		jnum(f, "mean", r->mean, 1);
		jnum(f, "sd", r->sd, 1);
		jnum(f, "ci_low", r->ci_low, 1);
		jnum(f, "ci_high", r->ci_high, 1);
		jnum(f, "seed_sd", r->seed_sd, 0);
		if (r->base < 0) {
			fputs(", \"test\": null}", f);
			continue;
		}
		fputs(", \"test\": {\"baseline\": ", f);
		cli_json_str(f, st->groups[st->rows[r->base].group].policy);
		fprintf(f, ", \"state\": \"%s\", \"method\": \"%s\", \"pairs\": %zu, ",
			stats_test_name(r->test), stats_method_name(r->method), r->pairs);
		jnum(f, "diff", r->diff, 1);
		jnum(f, "diff_ci_low", r->diff_lo, 1);
		jnum(f, "diff_ci_high", r->diff_hi, 1);
		jnum(f, "rel_diff", r->rel_diff, 1);
		jnum(f, "t", r->t, 1);
		jnum(f, "df", r->df, 1);
		jnum(f, "p", r->p, 1);
		jnum(f, "p_holm", r->p_holm, 1);
		fprintf(f, "\"significant\": %s, ", r->significant ? "true" : "false");
		jnum(f, "cohens_d", r->d, 1);
		jnum(f, "wilcoxon_v", r->w_v, 1);
		jnum(f, "wilcoxon_p", r->w_p, 1);
		jnum(f, "wilcoxon_p_holm", r->w_p_holm, 1);
		fprintf(f, "\"family\": %s}}", r->in_family ? "true" : "false");
	}
	fputs("\n]}\n", f);
}
