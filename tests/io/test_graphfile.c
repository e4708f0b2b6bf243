/* gat_dataset_read on the inputs users bring (issue 35 item 8, item 3): edge tables that libgat
 * reads itself (edge lists of numbers or names, '#' comments, header lines, CSV with quoting and
 * named columns, gzip), features and labels from GraphML/GML vertex attributes, GML labels as
 * node names, and one rule for edge directions in every format. Files are written here. */
#include "testutil.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static char *dir;

static void setup(void)
{
    dir = tu_tmpdir();
}

static void teardown(void)
{
    tu_rmtree(dir);
    free(dir);
}

/* gat_dataset_read of graph text (file name `name`) with the optional features and labels texts,
 * raw features, no random split sizes that could fail. */
static gat_status read_text(gat_dataset *ds, const char *name, const char *graph,
                            const char *features, const char *labels, gat_dataset_options *opt)
{
    char g[4200], f[4200], l[4200];
    snprintf(g, sizeof g, "%s", tu_write(dir, name, graph));
    if (features) snprintf(f, sizeof f, "%s", tu_write(dir, "g.features", features));
    if (labels) snprintf(l, sizeof l, "%s", tu_write(dir, "g.labels", labels));
    gat_dataset_options o;
    if (!opt) {
        gat_dataset_options_default(&o);
        o.normalize = GAT_NORMALIZE_OFF;
        opt = &o;
    }
    gat_dataset_files files = {
        .graph = g, .features = features ? f : NULL, .labels = labels ? l : NULL};
    return gat_dataset_read(ds, &files, opt);
}

static gat_idx node(const gat_dataset *ds, const char *id)
{
    return tu_node(ds, id);
}

static int has_edge(const gat_dataset *ds, gat_idx j, gat_idx i)
{
    return tu_has_edge(&ds->graph, j, i);
}

static int edge(const gat_dataset *ds, const char *a, const char *b)
{
    return has_edge(ds, node(ds, a), node(ds, b));
}

/* Edge feature column k of the CSR edge j -> i. */
static double edge_value(const gat_dataset *ds, const char *a, const char *b, gat_idx k)
{
    const gat_idx i = node(ds, b), j = node(ds, a);
    for (gat_idx e = ds->graph.rowptr[i]; e < ds->graph.rowptr[i + 1]; e++)
        if (ds->graph.col[e] == j) return ds->edge_x[(size_t)e * ds->n_edge_features + k];
    ck_abort_msg("no edge %s -> %s", a, b);
    return NAN;
}

/* ---- Edge lists: numbers, names, comments, header lines ----------------------------------- */

START_TEST(edge_list_of_names)
{
    gat_dataset ds;
    /* names read as names (the ncol rule), in order of first appearance */
    ck_assert_int_eq(read_text(&ds, "g.edges", "# a comment\nalice bob\nbob carol\n", NULL,
                               "alice x\ncarol y\n", NULL),
                     GAT_OK);
    ck_assert_int_eq(ds.n, 3);
    ck_assert_str_eq(ds.node_ids[0], "alice");
    ck_assert_str_eq(ds.node_ids[1], "bob");
    ck_assert_str_eq(ds.node_ids[2], "carol");
    ck_assert(edge(&ds, "alice", "bob") && edge(&ds, "bob", "alice"));
    ck_assert_int_eq(ds.graph.nnz, 4 + 3);
    ck_assert_int_eq(ds.labels[1], -1);
    gat_dataset_destroy(&ds);
    /* with a features file the rows follow its lines, and its extra ids are isolated nodes */
    ck_assert_int_eq(read_text(&ds, "g.edges", "alice bob\nbob carol\n",
                               "dave 4\ncarol 3\nbob 2\nalice 1\n", NULL, NULL),
                     GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    ck_assert_str_eq(ds.node_ids[0], "dave");
    ck_assert_str_eq(ds.node_ids[3], "alice");
    ck_assert(ds.x.val[ds.x.rowptr[3]] == 1);
    gat_dataset_destroy(&ds);
    /* one name among numbers makes every id a name: "0" and "1" are names, no vertex 2..9 */
    ck_assert_int_eq(read_text(&ds, "g.edges", "0 1\n1 x\n9 0\n", NULL, NULL, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    ck_assert_str_eq(ds.node_ids[2], "x");
    ck_assert_str_eq(ds.node_ids[3], "9");
    gat_dataset_destroy(&ds);
    /* numbers stay vertex numbers: vertex 1 exists without an edge */
    ck_assert_int_eq(read_text(&ds, "g.edges", "0 2\n", NULL, NULL, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 3);
    ck_assert_str_eq(ds.node_ids[1], "1");
    gat_dataset_destroy(&ds);
}
END_TEST

START_TEST(header_lines)
{
    gat_dataset ds;
    /* column names above vertex numbers: a header */
    ck_assert_int_eq(read_text(&ds, "g.edges",
                               "# SNAP-style comment\n% KONECT-style 1 2\nsrc dst\n0 1\n1 2\n",
                               NULL, NULL, NULL),
                     GAT_OK);
    ck_assert_int_eq(ds.n, 3);
    ck_assert_int_eq(ds.graph.nnz, 4 + 3);
    gat_dataset_destroy(&ds);
    /* a white-space table of names has no header (networkx writes none): "u v" is an edge */
    ck_assert_int_eq(read_text(&ds, "g.edges", "u v\na b\n", NULL, NULL, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    gat_dataset_destroy(&ds);
    /* CSV: a header unless the first line holds vertex numbers */
    ck_assert_int_eq(read_text(&ds, "g.csv", "source,target\na,b\nb,c\n", NULL, NULL, NULL),
                     GAT_OK);
    ck_assert_int_eq(ds.n, 3);
    ck_assert_str_eq(ds.node_ids[0], "a");
    gat_dataset_destroy(&ds);
    ck_assert_int_eq(read_text(&ds, "g.csv", "0,1\n1,2\n", NULL, NULL, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 3);
    ck_assert_int_eq(ds.graph.nnz, 4 + 3);
    gat_dataset_destroy(&ds);
    ck_assert_int_eq(read_text(&ds, "g.csv", "src,dst\n0,1\n1,3\n", NULL, NULL, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 4);
    gat_dataset_destroy(&ds);
    /* a header alone: no edges; the features file declares the one vertex */
    ck_assert_int_eq(read_text(&ds, "g.csv", "source,target\n", "0 1\n", NULL, NULL), GAT_OK);
    ck_assert_int_eq(ds.n, 1);
    ck_assert_int_eq(ds.graph.nnz, 1);
    gat_dataset_destroy(&ds);
}
END_TEST

START_TEST(csv_fields_and_columns)
{
    gat_dataset ds;
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    o.self_loop_fill = GAT_SELF_LOOP_FILL_ZERO;
    /* quoted names with blanks, commas and quotes; blanks around fields; CRLF line ends */
    ck_assert_int_eq(read_text(&ds, "g.csv",
                               "from , to , w\r\n\"New York\" , \"Boston, MA\" , 1.5\r\n"
                               "\"Boston, MA\",\"say \"\"hi\"\"\",2\r\n",
                               NULL, NULL, &o),
                     GAT_OK);
    ck_assert_int_eq(ds.n, 3);
    ck_assert_str_eq(ds.node_ids[0], "New York");
    ck_assert_str_eq(ds.node_ids[1], "Boston, MA");
    ck_assert_str_eq(ds.node_ids[2], "say \"hi\"");
    ck_assert_int_eq(ds.n_edge_features, 1);
    ck_assert(edge_value(&ds, "New York", "Boston, MA", 0) == 1.5);
    ck_assert(edge_value(&ds, "say \"hi\"", "Boston, MA", 0) == 2);
    gat_dataset_destroy(&ds);
    /* edge attributes name the header's columns */
    const char *names[] = {"t", "w"};
    o.edge_attributes = names;
    o.n_edge_attributes = 2;
    ck_assert_int_eq(read_text(&ds, "g.csv", "src,dst,w,t\n0,1,0.5,7\n1,2,1.5,8\n", NULL, NULL, &o),
                     GAT_OK);
    ck_assert_int_eq(ds.n_edge_features, 2);
    ck_assert(edge_value(&ds, "1", "2", 0) == 8);
    ck_assert(edge_value(&ds, "1", "2", 1) == 1.5);
    ck_assert(edge_value(&ds, "0", "1", 0) == 7);
    gat_dataset_destroy(&ds);
    ASSERT_FAILS(read_text(&ds, "g.csv", "src,dst,w\n0,1,0.5\n", NULL, NULL, &o), GAT_EINVAL,
                 "g.csv:1: edge attribute 't' is not a column of the header (its edge columns are "
                 "the fields after the two nodes)");
    ASSERT_FAILS(read_text(&ds, "g.edges", "0 1 0.5 1\n", NULL, NULL, &o), GAT_EINVAL,
                 "g.edges: edge attribute 't' named, but the file has no header line naming its "
                 "columns");
    o.n_edge_attributes = 0;
    ASSERT_FAILS(read_text(&ds, "g.csv", "src,dst,w\n0,1\n", NULL, NULL, &o), GAT_EFORMAT,
                 "g.csv:2: 2 fields, expected 3 as in the header line");
    ASSERT_FAILS(read_text(&ds, "g.csv", "0,1,x\n", NULL, NULL, &o), GAT_EFORMAT,
                 "g.csv:1:5: edge feature 1 is not a number: 'x'");
    ASSERT_FAILS(read_text(&ds, "g.csv", "a,b,1\nb,c,inf\n", NULL, NULL, &o), GAT_ENUMERIC,
                 "g.csv:2:5: edge feature 1 is not finite: 'inf'");
    ASSERT_FAILS(read_text(&ds, "g.edges", "0 1\n2\n", NULL, NULL, &o), GAT_EFORMAT,
                 "g.edges:2: 1 field, expected two node ids");
    ASSERT_FAILS(read_text(&ds, "g.edges", "0 1 2\n2 3\n", NULL, NULL, &o), GAT_EFORMAT,
                 "g.edges:2: 2 fields, expected 3 as on the first line (two nodes and the same 1 "
                 "edge feature column on every line)");
    /* the vertex bound of numbered tables: more vertices than bytes without a features file */
    ASSERT_FAILS(read_text(&ds, "g.edges", "0 1999999999\n", NULL, NULL, &o), GAT_EFORMAT,
                 "implies 2000000000 vertices, more than a file of 13 bytes can name");
}
END_TEST

/* Node tables named *.csv (or *.csv.gz) are comma-separated, with a header line when they have
 * one (pandas' to_csv writes it): features whose first line holds a field that is no number,
 * labels and splits whose first line's id is no node. They give the dataset the white-space
 * tables give; a first line of data is data. */
static gat_status read_tables(gat_dataset *ds, const char *features, const char *labels,
                              const char *split, const char *ext)
{
    char g[4200], f[4200], l[4200], sp[4200], name[32];
    snprintf(g, sizeof g, "%s", tu_write(dir, "g.edges", "a b\nb c\nc d\nd a\ne a\n"));
    snprintf(name, sizeof name, "f.%s", ext);
    snprintf(f, sizeof f, "%s", tu_write(dir, name, features));
    snprintf(name, sizeof name, "l.%s", ext);
    snprintf(l, sizeof l, "%s", tu_write(dir, name, labels));
    snprintf(name, sizeof name, "s.%s", ext);
    snprintf(sp, sizeof sp, "%s", tu_write(dir, name, split));
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    gat_dataset_files files = {.graph = g, .features = f, .labels = l, .split = sp};
    return gat_dataset_read(ds, &files, &o);
}

START_TEST(csv_node_tables)
{
    gat_dataset a, b;
    ck_assert_int_eq(read_tables(&a, "a 1 0.5\nb 0 2\nc 3 0\nd 1 1\ne 0 0\n",
                                 "a x\nb y\nc x\nd y\ne x\n",
                                 "a train\nb train\nc val\nd test\ne test\n", "txt"),
                     GAT_OK);
    ck_assert_msg(read_tables(&b, "id,f0,\"f 1\"\na,1,0.5\nb,0,2\n\"c\", 3 ,0\nd,1,1\ne,0,0\n",
                              "node,label\na,x\nb,y\nc,x\nd,y\ne,x\n",
                              "node,split\na,train\nb,train\nc,val\nd,test\ne,test\n",
                              "csv") == GAT_OK,
                  "%s", gat_last_error());
    ck_assert_int_eq(b.n, a.n);
    ck_assert_int_eq(b.n_features, 2);
    ck_assert_int_eq(b.x.rowptr[b.n], a.x.rowptr[a.n]);
    ck_assert(!memcmp(b.x.val, a.x.val, (size_t)a.x.rowptr[a.n] * sizeof *a.x.val));
    ck_assert(!memcmp(b.labels, a.labels, (size_t)a.n * sizeof *a.labels));
    ck_assert(!memcmp(b.split, a.split, (size_t)a.n));
    ck_assert_int_eq(b.n_train, 2);
    gat_dataset_destroy(&b);
    /* no header: the first lines are data (here with sparse features) */
    ck_assert_msg(read_tables(&b, "a,0:1,1:0.5\nb,1:2\nc,0:3\nd,0:1,1:1\ne\n",
                              "a,x\nb,y\nc,x\nd,y\ne,x\n",
                              "a,train\nb,train\nc,val\nd,test\ne,test\n", "csv") == GAT_OK,
                  "%s", gat_last_error());
    ck_assert(!memcmp(b.x.val, a.x.val, (size_t)a.x.rowptr[a.n] * sizeof *a.x.val));
    ck_assert(!memcmp(b.labels, a.labels, (size_t)a.n * sizeof *a.labels));
    ck_assert(!memcmp(b.split, a.split, (size_t)a.n));
    gat_dataset_destroy(&b);
    gat_dataset_destroy(&a);
    /* a header is one line: a second is data, and errors name its line */
    ASSERT_FAILS(read_tables(&b, "id,f0,f1\nid,f0,f1\na,1,0.5\n", "a,x\n", "a,train\n", "csv"),
                 GAT_EFORMAT, "f.csv:2:");
    ASSERT_FAILS(read_tables(&b, "id,f0,f1\na,1,0.5\nb,0,2\nc,3,0\nd,1,1\ne,0,0\n",
                             "node,label\nnode,label\n", "a,train\n", "csv"),
                 GAT_EFORMAT, "l.csv:2:1: unknown node id 'node'");
    /* the same files named .txt: a header is no number */
    ASSERT_FAILS(read_tables(&b, "id f0 f1\na 1 0.5\n", "a x\n", "a train\n", "txt"), GAT_EFORMAT,
                 "f.txt:1:4: field 2 of node 'id' is not a number: 'f0'");
}
END_TEST

START_TEST(gzip_and_extensions)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/e.csv.gz", dir);
    gzFile z = gzopen(path, "wb");
    ck_assert_ptr_nonnull(z);
    ck_assert_int_gt(gzputs(z, "source,target\na,b\nb,c\nc,a\n"), 0);
    ck_assert_int_eq(gzclose(z), Z_OK);
    gat_dataset ds;
    gat_dataset_files files = {.graph = path};
    ck_assert_msg(gat_dataset_read(&ds, &files, NULL) == GAT_OK, "%s", gat_last_error());
    ck_assert_int_eq(ds.n, 3);
    ck_assert_int_eq(ds.graph.nnz, 6 + 3);
    gat_dataset_destroy(&ds);
    gat_graph_format f;
    ck_assert_int_eq(gat_graph_format_from_path("d/x.TSV", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_EDGELIST);
    ck_assert_int_eq(gat_graph_format_from_path("x.edges.gz", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_EDGELIST);
    ck_assert_int_eq(gat_graph_format_from_path("x.ncol.gz", &f), GAT_OK);
    ck_assert_int_eq(f, GAT_GRAPH_FORMAT_NCOL);
    ck_assert_str_eq(gat_graph_format_name(GAT_GRAPH_FORMAT_CSV), "csv");
    ASSERT_FAILS(gat_graph_format_from_path("x.graphml.gz", &f), GAT_EINVAL,
                 "x.graphml.gz: igraph reads graphml files uncompressed: gunzip it first (edge "
                 "lists, ncol and csv files may be gzipped)");
    ASSERT_FAILS(gat_graph_format_from_path("x.gz", &f), GAT_EINVAL,
                 "cannot tell the graph format of x.gz");
}
END_TEST

/* ---- Vertex attributes, GML names ---------------------------------------------------------- */

static const char *GRAPHML =
    "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
    "<key id=\"a\" for=\"node\" attr.name=\"age\" attr.type=\"double\"/>\n"
    "<key id=\"h\" for=\"node\" attr.name=\"height\" attr.type=\"double\"/>\n"
    "<key id=\"c\" for=\"node\" attr.name=\"club\" attr.type=\"string\"/>\n"
    "<key id=\"k\" for=\"node\" attr.name=\"rank\" attr.type=\"double\"/>\n"
    "<graph edgedefault=\"undirected\">\n"
    "<node id=\"u\"><data key=\"a\">30</data><data key=\"h\">1.5</data>"
    "<data key=\"c\">chess</data><data key=\"k\">2</data></node>\n"
    "<node id=\"v\"><data key=\"a\">40</data><data key=\"h\">0</data>"
    "<data key=\"c\">go</data><data key=\"k\">-1</data></node>\n"
    "<node id=\"w\"><data key=\"a\">50</data><data key=\"h\">2</data><data key=\"k\">10</data>"
    "</node>\n"
    "<edge source=\"u\" target=\"v\"/><edge source=\"v\" target=\"w\"/>\n"
    "</graph>\n</graphml>\n";

/* gat_dataset_read of GRAPHML (or text) with the attribute fields of files. */
static gat_status read_attrs(gat_dataset *ds, const char *name, const char *text, const char *label,
                             const char *const *feats, gat_idx n_feats)
{
    char g[4200];
    snprintf(g, sizeof g, "%s", tu_write(dir, name, text));
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.normalize = GAT_NORMALIZE_OFF;
    o.train_per_class = 1;
    o.n_val = o.n_test = 0;
    gat_dataset_files files = {.graph = g,
                               .label_attribute = label,
                               .feature_attributes = feats,
                               .n_feature_attributes = n_feats};
    return gat_dataset_read(ds, &files, &o);
}

START_TEST(vertex_attributes)
{
    gat_dataset ds;
    /* every numeric attribute but the label one: age, height (rank is the label) */
    ck_assert_msg(read_attrs(&ds, "g.graphml", GRAPHML, "rank", NULL, GAT_ALL_ATTRIBUTES) == GAT_OK,
                  "%s", gat_last_error());
    ck_assert_int_eq(ds.n, 3);
    ck_assert_int_eq(ds.n_features, 2);
    ck_assert_str_eq(ds.node_ids[0], "u");
    ck_assert(ds.x.val[0] == 30 && ds.x.val[1] == 1.5);
    ck_assert_int_eq(ds.x.rowptr[2] - ds.x.rowptr[1], 1); /* height 0: not stored */
    /* numeric labels 2, -1 (unlabelled), 10: classes in numeric order */
    ck_assert_int_eq(ds.n_classes, 2);
    ck_assert_str_eq(ds.class_names[0], "2");
    ck_assert_str_eq(ds.class_names[1], "10");
    ck_assert_int_eq(ds.labels[0], 0);
    ck_assert_int_eq(ds.labels[1], -1);
    ck_assert_int_eq(ds.labels[2], 1);
    gat_dataset_destroy(&ds);
    /* a string class attribute (w has none: unlabelled); named features in the given order */
    const char *feats[] = {"height", "rank"};
    ck_assert_int_eq(read_attrs(&ds, "g.graphml", GRAPHML, "club", feats, 2), GAT_OK);
    ck_assert_int_eq(ds.n_features, 2);
    ck_assert(ds.x.val[0] == 1.5 && ds.x.val[1] == 2);
    ck_assert_int_eq(ds.n_classes, 2);
    ck_assert_str_eq(ds.class_names[0], "chess");
    ck_assert_int_eq(ds.labels[2], -1);
    gat_dataset_destroy(&ds);
    const char *missing[] = {"age", "weight"};
    ASSERT_FAILS(read_attrs(&ds, "g.graphml", GRAPHML, "club", missing, 2), GAT_EINVAL,
                 "g.graphml: vertex attribute 'weight' does not exist");
    ASSERT_FAILS(read_attrs(&ds, "g.graphml", GRAPHML, "club", (const char *[]){"club"}, 1),
                 GAT_EINVAL, "g.graphml: vertex attribute 'club' is not numeric");
    ASSERT_FAILS(read_attrs(&ds, "g.graphml", GRAPHML, "team", NULL, 0), GAT_EINVAL,
                 "g.graphml: vertex attribute 'team' does not exist");
    /* a vertex without the value reads NaN: named as the bridge names it */
    ASSERT_FAILS(read_attrs(&ds, "g.gml",
                            "graph [\n node [ id 0 f 1 c 1 ]\n node [ id 1 c 0 ]\n"
                            " edge [ source 0 target 1 ]\n]\n",
                            "c", (const char *[]){"f"}, 1),
                 GAT_ENUMERIC, "g.gml: attribute 'f' of vertex 1 is nan");
    const char *no_class = "graph [\n node [ id 0 c -1 ]\n node [ id 1 c -2 ]\n"
                           " edge [ source 0 target 1 ]\n]\n";
    ASSERT_FAILS(read_attrs(&ds, "g.gml", no_class, "c", NULL, 0), GAT_EFORMAT,
                 "g.gml: vertex attribute 'c' gives no vertex a class (every value is missing, "
                 "negative or empty)");
    /* no numeric attribute besides the label: one-hot features */
    ck_assert_int_eq(read_attrs(&ds, "g.gml",
                                "graph [\n node [ id 0 c 1 ]\n node [ id 1 c 0 ]\n"
                                " edge [ source 0 target 1 ]\n]\n",
                                "c", NULL, GAT_ALL_ATTRIBUTES),
                     GAT_OK);
    ck_assert_int_eq(ds.n_features, 2);
    ck_assert_int_eq(ds.labels[0], 1);
    gat_dataset_destroy(&ds);
    /* the attributes exclude the files, and edge tables have none */
    char g[4200];
    snprintf(g, sizeof g, "%s", tu_write(dir, "g.graphml", GRAPHML));
    gat_dataset_files both = {
        .graph = g, .labels = g, .label_attribute = "club", .n_feature_attributes = 0};
    ASSERT_FAILS(gat_dataset_read(&ds, &both, NULL), GAT_EINVAL,
                 "gat_dataset_read: a labels file and a label attribute both given");
    both = (gat_dataset_files){.graph = g, .features = g, .n_feature_attributes = -1};
    ASSERT_FAILS(gat_dataset_read(&ds, &both, NULL), GAT_EINVAL,
                 "gat_dataset_read: a features file and feature attributes both given");
    both = (gat_dataset_files){.graph = g, .n_feature_attributes = 2};
    ASSERT_FAILS(gat_dataset_read(&ds, &both, NULL), GAT_EINVAL,
                 "gat_dataset_read: 2 feature attributes but NULL names");
    ASSERT_FAILS(read_attrs(&ds, "g.csv", "a,b\n", "club", NULL, 0), GAT_EINVAL,
                 "g.csv: csv files have no vertex attributes to read features or labels from");
}
END_TEST

START_TEST(gml_label_names)
{
    gat_dataset ds;
    /* networkx's write_gml: ids 0, 1, 2 and the node names in label */
    const char *nx = "graph [\n  node [ id 0 label \"alice\" ]\n  node [ id 1 label \"bob\" ]\n"
                     "  node [ id 2 label \"carol\" ]\n  edge [ source 0 target 1 ]\n"
                     "  edge [ source 1 target 2 ]\n]\n";
    ck_assert_msg(read_text(&ds, "g.gml", nx, "carol 3\nalice 1\nbob 2\n", "alice a\nbob b\n",
                            NULL) == GAT_OK,
                  "%s", gat_last_error());
    ck_assert_str_eq(ds.node_ids[0], "alice");
    ck_assert_str_eq(ds.node_ids[2], "carol");
    ck_assert(ds.x.val[ds.x.rowptr[2]] == 3);
    ck_assert_int_eq(ds.labels[1], 1);
    gat_dataset_destroy(&ds);
    /* labels that repeat are display text, not names: the ids name the nodes */
    const char *dup = "graph [\n  node [ id 7 label \"x\" ]\n  node [ id 8 label \"x\" ]\n"
                      "  edge [ source 7 target 8 ]\n]\n";
    ck_assert_int_eq(read_text(&ds, "g.gml", dup, "7 1\n8 2\n", NULL, NULL), GAT_OK);
    ck_assert_str_eq(ds.node_ids[0], "7");
    gat_dataset_destroy(&ds);
}
END_TEST

/* ---- Directions: one rule for every format ------------------------------------------------- */

/* Reads text (file name) with symmetrize s: 1 if the graph has only the message edge a -> b
 * among a, b (directed), 2 if both directions. */
static int direction(const char *name, const char *text, int s)
{
    gat_dataset ds;
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.symmetrize = s;
    ck_assert_msg(read_text(&ds, name, text, NULL, NULL, &o) == GAT_OK, "%s: %s", name,
                  gat_last_error());
    const int ab = edge(&ds, "a", "b"), ba = edge(&ds, "b", "a");
    gat_dataset_destroy(&ds);
    ck_assert(ab);
    return ba ? 2 : 1;
}

START_TEST(one_direction_rule)
{
    const char *gml_d = "graph [\n directed 1\n node [ id 0 label \"a\" ]\n"
                        " node [ id 1 label \"b\" ]\n edge [ source 0 target 1 ]\n]\n";
    const char *gml_u = "graph [\n directed 0\n node [ id 0 label \"a\" ]\n"
                        " node [ id 1 label \"b\" ]\n edge [ source 0 target 1 ]\n]\n";
    const char *xml_d = "<graphml><graph edgedefault=\"directed\"><node id=\"a\"/><node id=\"b\"/>"
                        "<edge source=\"a\" target=\"b\"/></graph></graphml>";
    const char *xml_u = "<graphml><graph edgedefault=\"undirected\"><node id=\"a\"/>"
                        "<node id=\"b\"/><edge source=\"a\" target=\"b\"/></graph></graphml>";
    const char *net_d = "*Vertices 2\n1 \"a\"\n2 \"b\"\n*Arcs\n1 2\n";
    /* the default (symmetrize, --directed absent): both directions, whatever the file says */
    ck_assert_int_eq(direction("g.graphml", xml_d, 1), 2);
    ck_assert_int_eq(direction("g.gml", gml_d, 1), 2);
    ck_assert_int_eq(direction("g.net", net_d, 1), 2);
    ck_assert_int_eq(direction("g.csv", "s,t\na,b\n", 1), 2);
    ck_assert_int_eq(direction("g.edges", "a b\n", 1), 2);
    /* symmetrize = 0 (--directed): each edge keeps the direction its file gives it; an edge
     * of an undirected file has none, so it still runs both ways; edge tables state no
     * direction, so their lines are read as a -> b */
    ck_assert_int_eq(direction("g.graphml", xml_d, 0), 1);
    ck_assert_int_eq(direction("g.gml", gml_d, 0), 1);
    ck_assert_int_eq(direction("g.net", net_d, 0), 1);
    ck_assert_int_eq(direction("g.csv", "s,t\na,b\n", 0), 1);
    ck_assert_int_eq(direction("g.ncol", "a b\n", 0), 1);
    ck_assert_int_eq(direction("g.graphml", xml_u, 0), 2);
    ck_assert_int_eq(direction("g.gml", gml_u, 0), 2);
}
END_TEST

/* Fails allocation k = 0, 1, ... until a CSV of names with a column and a GraphML file with
 * attributes read: GAT_ENOMEM each time, the dataset zeroed. */
START_TEST(allocation_failures)
{
    char g[4200], h[4200];
    snprintf(g, sizeof g, "%s", tu_write(dir, "g.csv", "s,t,w\na,b,1\nb,c,2\n"));
    snprintf(h, sizeof h, "%s", tu_write(dir, "h.graphml", GRAPHML));
    const gat_dataset_files cases[2] = {
        {.graph = g},
        {.graph = h, .label_attribute = "club", .n_feature_attributes = GAT_ALL_ATTRIBUTES}};
    gat_dataset_options o;
    gat_dataset_options_default(&o);
    o.train_per_class = 1;
    o.n_val = o.n_test = 0;
    for (int c = 0; c < 2; c++) {
        gat_dataset ds;
        gat_status st = GAT_ENOMEM;
        long k;
        for (k = 0; k < 5000 && st != GAT_OK; k++) {
            gat_i_alloc_fail_at(k);
            st = gat_dataset_read(&ds, &cases[c], &o);
            gat_i_alloc_fail_at(-1);
            ck_assert_msg(st == GAT_OK || st == GAT_ENOMEM, "case %d, k = %ld: %s", c, k,
                          gat_last_error());
            if (st != GAT_OK) ck_assert_int_eq(ds.n, 0);
        }
        ck_assert_int_eq(st, GAT_OK);
        ck_assert_int_eq(ds.n, 3);
        gat_dataset_destroy(&ds);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("graphfile");
    const struct {
        const char *name;
        const TTest *test;
    } cases[] = {{"edge_list_of_names", edge_list_of_names},
                 {"header_lines", header_lines},
                 {"csv_fields_and_columns", csv_fields_and_columns},
                 {"csv_node_tables", csv_node_tables},
                 {"gzip_and_extensions", gzip_and_extensions},
                 {"vertex_attributes", vertex_attributes},
                 {"gml_label_names", gml_label_names},
                 {"one_direction_rule", one_direction_rule},
                 {"allocation_failures", allocation_failures}};
    for (size_t k = 0; k < LEN(cases); k++) {
        TCase *tc = tcase_create(cases[k].name);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, cases[k].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return tu_run(suite());
}
