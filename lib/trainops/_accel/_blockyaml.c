/* trainops._accel._blockyaml: one C pass from the block YAML that manifests are written in to Python
 * values, or to the position of one node.
 *
 * parse(text) -> (value, strings, envs) | None
 * locate(text, parts) -> (line, column) | None
 *
 * trainops.yaml.load reads YAML with PyYAML; trainops._accel hands this module the documents of texts
 * made of tab, line feed and printable ASCII (TRAINOPS_ACCEL=0 turns it off). It reads the
 * subset of YAML that generated and hand-written manifests use (block mappings and sequences, plain,
 * single- and double-quoted one-line scalars, literal and simple folded block scalars, empty flow
 * collections, comments) in one pass and builds the same values.
 * Anything outside that subset, or any scalar whose YAML 1.1 type could differ (see `plain_value`),
 * returns None and the caller reads the document with PyYAML, which also reports errors with positions.
 * A None only costs speed; a value is always the one PyYAML's path builds (tests/accel/test_accel.py).
 *
 * Deliberately refused (None): non-ASCII text, tabs, carriage returns and other control characters;
 * anchors, aliases, tags, merge keys, complex keys, directives; multi-line plain and quoted scalars;
 * non-empty flow collections; duplicate keys; an indented or scalar document root; nesting deeper
 * than MAX_NEST.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_NEST 100

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buf;

typedef struct {
    const char *s;   /* the text (ASCII) */
    Py_ssize_t n;    /* its length; s[n - 1] == '\n' */
    Py_ssize_t pos;  /* start of the current line */
    int depth;
    int refused;     /* set when the text is outside the subset (return None) */
    Buf tmp;         /* scratch for scalars with escapes */
    /* locate(): the path looked for, and where its deepest existing node starts */
    PyObject *const *parts; /* the path's parts (str keys, int indices); NULL when only parsing */
    Py_ssize_t nparts;
    int on;                 /* parts matched by the node being read (its depth on the path), or -1 */
    Py_ssize_t found_at;    /* offset of the mark of the deepest node of the path met so far */
    /* parse(): every string value (keys left out) and the value of every "env" key, as
       trainops.validate.scan collects them; NULL when not collecting */
    PyObject *strings;
    PyObject *envs;
} P;

static int buf_grow(Buf *b, Py_ssize_t extra) {
    if (b->len + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) cap *= 2;
    char *data = PyMem_Realloc(b->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const char *s, Py_ssize_t len) {
    if (buf_grow(b, len) < 0) return -1;
    memcpy(b->data + b->len, s, (size_t)len);
    b->len += len;
    return 0;
}

static int buf_putc(Buf *b, char c) {
    if (buf_grow(b, 1) < 0) return -1;
    b->data[b->len++] = c;
    return 0;
}

static PyObject *ascii_str(const char *s, Py_ssize_t len) {
    PyObject *str = PyUnicode_New(len, 127);
    if (str == NULL) return NULL;
    memcpy(PyUnicode_1BYTE_DATA(str), s, (size_t)len);
    return str;
}

/* A string value (not a key): made, and recorded in p->strings when collecting. */
static PyObject *value_str(P *p, const char *s, Py_ssize_t len) {
    PyObject *str = ascii_str(s, len);
    if (str != NULL && p->strings != NULL && PyList_Append(p->strings, str) < 0) Py_CLEAR(str);
    return str;
}

/* Record `value` as an "env" key's value when collecting (as the scan does: any value but null). */
static int note_env(P *p, PyObject *key, PyObject *value) {
    if (p->envs == NULL || value == Py_None || PyUnicode_CompareWithASCIIString(key, "env") != 0) return 0;
    return PyList_Append(p->envs, value);
}

/* Line (0-based) of the last refusal, for tests and for finding what the subset misses. */
static Py_ssize_t last_refusal = -1;

static void mark(P *p) {
    if (!p->refused) {
        Py_ssize_t line = 0;
        for (Py_ssize_t i = 0; i < p->pos && i < p->n; i++) line += p->s[i] == '\n';
        last_refusal = line;
    }
    p->refused = 1;
}

/* Key strings already made: manifests repeat a few hundred keys, so a key is looked up here (by its
 * bytes) instead of being allocated and interned again. Entries are interned strings owned by the cache;
 * a slot is replaced when another key hashes to it. */
#define KEY_CACHE 4096
#define KEY_CACHE_MAX_LEN 64
static PyObject *key_cache[KEY_CACHE];

static PyObject *key_str(const char *s, Py_ssize_t len) {
    if (len > KEY_CACHE_MAX_LEN) {
        PyObject *key = ascii_str(s, len);
        if (key != NULL) PyUnicode_InternInPlace(&key);
        return key;
    }
    uint32_t hash = 2166136261u;
    for (Py_ssize_t i = 0; i < len; i++) hash = (hash ^ (unsigned char)s[i]) * 16777619u;
    PyObject **slot = &key_cache[hash & (KEY_CACHE - 1)];
    PyObject *cached = *slot;
    if (cached != NULL && PyUnicode_GET_LENGTH(cached) == len && memcmp(PyUnicode_1BYTE_DATA(cached), s, (size_t)len) == 0) {
        Py_INCREF(cached);
        return cached;
    }
    PyObject *key = ascii_str(s, len);
    if (key == NULL) return NULL;
    PyUnicode_InternInPlace(&key);
    Py_INCREF(key);
    Py_XSETREF(*slot, key);
    return key;
}

static PyObject *refuse(P *p) {
    mark(p);
    return NULL;
}

/* locate(): whether the node below the current one (which matched `depth` parts of the path) by
 * mapping key `key` is the path's next node; its mark (`at`, the key) is then recorded. Returns the
 * child's depth on the path, or -1. As trainops.yaml.load.Document.locate: a key matches str(part). */
static int key_on_path(P *p, int depth, PyObject *key, Py_ssize_t at) {
    if (depth < 0 || depth >= p->nparts) return -1;
    PyObject *text = PyObject_Str(p->parts[depth]);
    if (text == NULL) {
        PyErr_Clear();
        return -1;
    }
    int equal = PyUnicode_Compare(text, key) == 0;
    Py_DECREF(text);
    if (!equal) return -1;
    p->found_at = at;
    return depth + 1;
}

/* locate(): the same for item `index` of a sequence, whose node starts at `at`: an int part. */
static int index_on_path(P *p, int depth, Py_ssize_t index, Py_ssize_t at) {
    if (depth < 0 || depth >= p->nparts || !PyLong_Check(p->parts[depth])) return -1;
    Py_ssize_t wanted = PyLong_AsSsize_t(p->parts[depth]);
    if (wanted == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    if (wanted != index) return -1;
    p->found_at = at;
    return depth + 1;
}

static Py_ssize_t line_end(P *p, Py_ssize_t at) {
    const char *nl = memchr(p->s + at, '\n', (size_t)(p->n - at));
    return nl - p->s;
}

/* Move p->pos to the next line with content (not blank, not a comment) and return its indentation,
 * or -1 at the end of the text. */
static int next_content(P *p) {
    while (p->pos < p->n) {
        Py_ssize_t i = p->pos;
        while (p->s[i] == ' ') i++;
        if (p->s[i] != '\n' && p->s[i] != '#') return (int)(i - p->pos);
        p->pos = line_end(p, i) + 1;
    }
    return -1;
}

static int is_seq_entry(P *p, Py_ssize_t at) {
    return p->s[at] == '-' && (p->s[at + 1] == ' ' || p->s[at + 1] == '\n');
}

/* After a scalar that ends at `at` on its line: only spaces, then a comment or the line break.
 * Moves p->pos to the next line; 0 on success, -1 (refused) otherwise. */
static int end_of_line(P *p, Py_ssize_t at) {
    const char *s = p->s;
    Py_ssize_t i = at;
    while (s[i] == ' ') i++;
    if (s[i] == '\n' || (s[i] == '#' && i > at)) {
        p->pos = line_end(p, i) + 1;
        return 0;
    }
    mark(p);
    return -1;
}

/* Whether s[0:len] equals word (wlen characters, lower case), ignoring ASCII case. */
static int same_word_n(const char *s, Py_ssize_t len, const char *word, Py_ssize_t wlen) {
    if (len != wlen) return 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != word[i]) return 0;
    }
    return 1;
}

#define same_word(s, len, word) same_word_n((s), (len), (word), (Py_ssize_t)(sizeof(word) - 1))

/* The words YAML 1.1 and its readers type (booleans, nulls, nan and inf), with their lengths: this is
 * asked of every plain scalar, and strlen of each word was an eighth of the reader's time. */
static const struct {
    const char *word;
    Py_ssize_t len;
} WORDS[] = {{"y", 1},     {"yes", 3},  {"n", 1},    {"no", 2},   {"on", 2},  {"off", 3},
             {"true", 4},  {"false", 5}, {"null", 4}, {"nan", 3}, {"inf", 3}, {"infinity", 8}};
#define LONGEST_WORD 8

/* Whether a plain scalar (or plain key) may be typed differently by YAML 1.1, go-yaml v2, PyYAML or
 * rapidyaml's JSON than as the string `plain_value` would make it: booleans and nulls in any case, ~,
 * nan/inf spellings, a lone sign, a dot followed by a digit, inf or nan, and anything that
 * starts with a digit and is made only of characters decimal numbers, dates, times and base 60 use
 * (digits . _ : + - e E) but for dotted versions (0.1.0), or is a 0x, 0o or 0b integer. Exact JSON integers and decimals are typed by
 * `plain_value` before this is asked. */
static int ambiguous(const char *s, Py_ssize_t len) {
    const char *r = s;
    Py_ssize_t rlen = len;
    if (len == 1 && s[0] == '~') return 1;
    if (rlen > 0 && (r[0] == '-' || r[0] == '+')) {
        r++;
        rlen--;
        if (rlen == 0) return 1;
    }
    if (r[0] == '.') /* .5, ._5, .inf, .NaN; not .spec.replicas */
        return rlen == 1 || (r[1] >= '0' && r[1] <= '9') || r[1] == '_' || same_word(r + 1, rlen - 1, "inf") ||
               same_word(r + 1, rlen - 1, "nan");
    if (rlen <= LONGEST_WORD)
        for (size_t w = 0; w < sizeof(WORDS) / sizeof(WORDS[0]); w++)
            if (same_word_n(r, rlen, WORDS[w].word, WORDS[w].len)) return 1;
    if (r[0] >= '0' && r[0] <= '9') {
        if (rlen > 1 && r[0] == '0' && strchr("xXoObB", r[1]) != NULL) {
            const char *digits = (r[1] == 'x' || r[1] == 'X') ? "0123456789abcdefABCDEF_"
                                 : (r[1] == 'o' || r[1] == 'O') ? "01234567_"
                                                                : "01_";
            Py_ssize_t i = 2;
            while (i < rlen && strchr(digits, r[i]) != NULL) i++;
            if (i == rlen) return 1;
        }
        int dots = 0, others = 0;
        for (Py_ssize_t i = 0; i < rlen; i++) {
            char c = r[i];
            if (c == '.') {
                dots++;
            } else if (c == '_' || c == ':' || c == '+' || c == '-' || c == 'e' || c == 'E') {
                others++;
            } else if (c < '0' || c > '9') {
                return 0;
            }
        }
        return dots < 2 || others > 0; /* 0.1.0: a version, never a number */
    }
    return 0;
}

/* 1: -?(0|[1-9][0-9]*) ; 2: that with .[0-9]+ ; 0: neither. */
static int json_number(const char *s, Py_ssize_t len) {
    Py_ssize_t i = 0;
    if (i < len && s[i] == '-') i++;
    if (i >= len) return 0;
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    } else {
        return 0;
    }
    if (i == len) return 1;
    if (s[i] != '.' || i + 1 >= len) return 0;
    i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    return i == len ? 2 : 0;
}

/* The value of a plain scalar s[0:len] (already trimmed). */
static PyObject *plain_value(P *p, const char *s, Py_ssize_t len) {
    if (len == 4 && memcmp(s, "true", 4) == 0) {
        Py_RETURN_TRUE;
    }
    if (len == 5 && memcmp(s, "false", 5) == 0) {
        Py_RETURN_FALSE;
    }
    if (len == 4 && memcmp(s, "null", 4) == 0) {
        Py_RETURN_NONE;
    }
    int number = json_number(s, len);
    if (number != 0 && len <= 18) {
        char text[24];
        memcpy(text, s, (size_t)len);
        text[len] = '\0';
        if (number == 1) return PyLong_FromString(text, NULL, 10);
        double value = PyOS_string_to_double(text, NULL, NULL);
        if (value == -1.0 && PyErr_Occurred()) return NULL;
        return PyFloat_FromDouble(value);
    }
    if (number != 0 || ambiguous(s, len)) return refuse(p);
    return value_str(p, s, len);
}

/* Characters that cannot start a plain scalar here (YAML indicators; `-`, `?` and `:` only when a space
 * follows, but `?` and `:` are refused in any case). */
static int bad_plain_start(const char *s) {
    switch (s[0]) {
    case '&': case '*': case '!': case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
    case '#': case ',': case '[': case ']': case '{': case '}': case '?': case ':': case '<':
        return 1;
    case '-':
        return s[1] == ' ' || s[1] == '\n';
    default:
        return 0;
    }
}

/* A quoted scalar starting at s[at] ('"' or '\''), closed on the same line. Sets *end after the
 * closing quote and the scalar's text in p->tmp. -1: refused or error. */
static int quoted(P *p, Py_ssize_t at, Py_ssize_t *end) {
    const char *s = p->s;
    char quote = s[at];
    Py_ssize_t i = at + 1;
    p->tmp.len = 0;
    for (;;) {
        char c = s[i];
        if (c == '\n') {
            mark(p);
            return -1;
        }
        if (c == quote) {
            if (quote == '\'' && s[i + 1] == '\'') {
                if (buf_putc(&p->tmp, '\'') < 0) return -1;
                i += 2;
                continue;
            }
            *end = i + 1;
            return 0;
        }
        if (c == '\\' && quote == '"') {
            char e = s[i + 1], out;
            switch (e) {
            case '\\': out = '\\'; break;
            case '"': out = '"'; break;
            case '/': out = '/'; break;
            case 'n': out = '\n'; break;
            case 't': out = '\t'; break;
            default:
                mark(p);
                return -1;
            }
            if (buf_putc(&p->tmp, out) < 0) return -1;
            i += 2;
            continue;
        }
        if (buf_putc(&p->tmp, c) < 0) return -1;
        i++;
    }
}

/* A mapping key at s[at]: plain or quoted, then ':' and a space or the line break. Returns the key (a
 * new reference) and sets *after to just after the ':'; NULL without refusal when s[at] starts no key
 * (a scalar), NULL with p->refused or an exception otherwise. */
static PyObject *key_at(P *p, Py_ssize_t at, Py_ssize_t *after) {
    const char *s = p->s;
    if (s[at] == '"' || s[at] == '\'') {
        Py_ssize_t end;
        if (quoted(p, at, &end) < 0) return NULL;
        Py_ssize_t i = end;
        while (s[i] == ' ') i++;
        if (s[i] != ':' || (s[i + 1] != ' ' && s[i + 1] != '\n')) return NULL;
        if (p->tmp.len == 0) return refuse(p);
        *after = i + 1;
        return key_str(p->tmp.data, p->tmp.len);
    }
    Py_ssize_t i = at;
    for (;;) {
        char c = s[i];
        if (c == '\n') return NULL;
        if (c == ':' && (s[i + 1] == ' ' || s[i + 1] == '\n')) break;
        if (c == '#' && s[i - 1] == ' ') return NULL;
        i++;
    }
    Py_ssize_t len = i;
    while (len > at && s[len - 1] == ' ') len--;
    len -= at;
    if (len == 0 || bad_plain_start(s + at) || s[at] == '-' || ambiguous(s + at, len) ||
        json_number(s + at, len) != 0)
        return refuse(p);
    *after = i + 1;
    return key_str(s + at, len);
}

static PyObject *node(P *p, int indent);
static PyObject *mapping(P *p, Py_ssize_t at, int col, PyObject *first_key, Py_ssize_t first_after);

/* The node under a key (column `col`) or a sequence entry (dash at `col`) whose line ends after the
 * indicator: a block node indented further, for a key also a sequence at the key's column, else null. */
static PyObject *block_value(P *p, int col, int is_key) {
    int indent = next_content(p);
    if (indent > col) return node(p, indent);
    if (is_key && indent == col && is_seq_entry(p, p->pos + indent)) return node(p, indent);
    Py_RETURN_NONE;
}

/* A block scalar whose header ('|' or '>', optional chomping '-' or '+') is at s[at]; its lines are
 * indented more than `col`. */
static PyObject *block_scalar(P *p, Py_ssize_t at, int col) {
    const char *s = p->s;
    char style = s[at];
    char chomp = ' ';
    Py_ssize_t i = at + 1;
    if (s[i] == '-' || s[i] == '+') chomp = s[i++];
    if (s[i] != '\n') return refuse(p); /* indentation indicators, comments, trailing spaces */
    p->pos = i + 1;
    /* the first line decides the indentation; leading blank lines are refused */
    Py_ssize_t line = p->pos;
    int indent = 0;
    while (line < p->n && s[line + indent] == ' ') indent++;
    if (line >= p->n || s[line + indent] == '\n' || indent <= col) return refuse(p);
    p->tmp.len = 0;
    Py_ssize_t trailing = 0; /* blank lines after the last content line */
    int lines = 0;
    while (line < p->n) {
        Py_ssize_t end = line_end(p, line);
        int spaces = 0;
        while (line + spaces < end && s[line + spaces] == ' ') spaces++;
        if (line + spaces == end) { /* blank */
            if (spaces > indent) return refuse(p);
            trailing++;
            line = end + 1;
            continue;
        }
        if (spaces < indent) break;
        if (trailing > 0 && style == '>') return refuse(p);
        if (style == '>' && spaces > indent) return refuse(p);
        for (; trailing > 0; trailing--)
            if (buf_putc(&p->tmp, '\n') < 0) return NULL;
        if (lines > 0 && buf_putc(&p->tmp, style == '>' ? ' ' : '\n') < 0) return NULL;
        if (buf_put(&p->tmp, s + line + indent, end - line - indent) < 0) return NULL;
        lines++;
        line = end + 1;
    }
    if (chomp != '-' && buf_putc(&p->tmp, '\n') < 0) return NULL;
    if (chomp == '+')
        for (; trailing > 0; trailing--)
            if (buf_putc(&p->tmp, '\n') < 0) return NULL;
    if (chomp == '+' && line >= p->n) return refuse(p); /* kept breaks at the end of the document */
    p->pos = line;
    return value_str(p, p->tmp.data, p->tmp.len);
}

/* A flow scalar at s[at] inside a flow collection: quoted, or plain up to ',', the closing bracket or
 * (in a mapping key) ": ". Sets *end after it (and spaces). Its value is returned. */
static PyObject *flow_scalar(P *p, Py_ssize_t at, char close, int is_key, Py_ssize_t *end) {
    const char *s = p->s;
    if (s[at] == '"' || s[at] == '\'') {
        if (quoted(p, at, end) < 0) return NULL;
        if (is_key && p->tmp.len == 0) return refuse(p);
        while (s[*end] == ' ') (*end)++;
        return is_key ? key_str(p->tmp.data, p->tmp.len) : value_str(p, p->tmp.data, p->tmp.len);
    }
    if (bad_plain_start(s + at)) return refuse(p);
    Py_ssize_t i = at;
    for (;;) {
        char ch = s[i];
        if (ch == ',' || ch == close) break;
        if (ch == ':' && (s[i + 1] == ' ' || s[i + 1] == ',' || s[i + 1] == close)) break;
        if (ch == '\n' || ch == '[' || ch == ']' || ch == '{' || ch == '}' || (ch == '#' && s[i - 1] == ' '))
            return refuse(p);
        i++;
    }
    Py_ssize_t len = i;
    while (len > at && s[len - 1] == ' ') len--;
    *end = i;
    if (is_key) {
        if (ambiguous(s + at, len - at) || json_number(s + at, len - at) != 0 || s[at] == '-') return refuse(p);
        return key_str(s + at, len - at);
    }
    return plain_value(p, s + at, len - at);
}

/* A flow sequence of scalars or a flow mapping of scalar keys and values at s[at], on one line (nested
 * collections, empty entries and trailing commas are refused). */
static PyObject *flow(P *p, Py_ssize_t at) {
    const char *s = p->s;
    char close = s[at] == '[' ? ']' : '}';
    int is_map = close == '}';
    PyObject *result = is_map ? PyDict_New() : PyList_New(0);
    if (result == NULL) goto fail;
    Py_ssize_t i = at + 1;
    while (s[i] == ' ') i++;
    if (s[i] != close) {
        for (Py_ssize_t index = 0;; index++) {
            Py_ssize_t end;
            PyObject *key = NULL;
            if (!is_map && p->on >= 0) index_on_path(p, p->on, index, i);
            if (is_map) {
                Py_ssize_t key_at_offset = i;
                key = flow_scalar(p, i, close, 1, &end);
                if (key == NULL) goto fail;
                if (p->on >= 0) key_on_path(p, p->on, key, key_at_offset);
                if (s[end] != ':' || s[end + 1] != ' ' || PyDict_Contains(result, key) != 0) {
                    Py_DECREF(key);
                    if (!PyErr_Occurred()) mark(p);
                    goto fail;
                }
                i = end + 1;
                while (s[i] == ' ') i++;
            }
            PyObject *value = flow_scalar(p, i, close, 0, &end);
            if (value == NULL) {
                Py_XDECREF(key);
                goto fail;
            }
            int stored = is_map ? PyDict_SetItem(result, key, value) : PyList_Append(result, value);
            if (stored == 0 && is_map) stored = note_env(p, key, value);
            Py_XDECREF(key);
            Py_DECREF(value);
            if (stored < 0) goto fail;
            i = end;
            if (s[i] == close) break;
            if (s[i] != ',' || s[i + 1] != ' ') { /* "a,b" is one plain scalar in YAML 1.1 flow? refuse */
                mark(p);
                goto fail;
            }
            i += 2;
            while (s[i] == ' ') i++;
        }
    }
    if (end_of_line(p, i + 1) < 0) goto fail;
    return result;
fail:
    Py_XDECREF(result);
    return NULL;
}

/* A value that starts on the current line at s[at], after "key: " or "- " (column `col` of the key
 * or dash). Moves p->pos past it. */
static PyObject *inline_value(P *p, Py_ssize_t at, int col) {
    const char *s = p->s;
    char c = s[at];
    if (c == '"' || c == '\'') {
        Py_ssize_t end;
        if (quoted(p, at, &end) < 0) return NULL;
        if (end_of_line(p, end) < 0) return NULL;
        return value_str(p, p->tmp.data, p->tmp.len);
    }
    if (c == '[' || c == '{') return flow(p, at);
    if (c == '|' || c == '>') return block_scalar(p, at, col);
    if (bad_plain_start(s + at)) return refuse(p);
    Py_ssize_t i = at;
    for (;;) {
        char ch = s[i];
        if (ch == '\n') break;
        if (ch == '#' && s[i - 1] == ' ') break;
        if (ch == ':' && (s[i + 1] == ' ' || s[i + 1] == '\n')) return refuse(p);
        i++;
    }
    Py_ssize_t len = i;
    while (s[len - 1] == ' ') len--;
    PyObject *value = plain_value(p, s + at, len - at);
    if (value != NULL) p->pos = line_end(p, i) + 1;
    return value;
}

static PyObject *sequence(P *p, int col) {
    if (++p->depth > MAX_NEST) return refuse(p);
    PyObject *list = PyList_New(0);
    if (list == NULL) goto fail;
    int here = p->on;
    for (Py_ssize_t index = 0;; index++) {
        /* p->pos is a line whose content is "- ..." at column col */
        Py_ssize_t dash = p->pos + col, at = dash + 1;
        while (p->s[at] == ' ') at++;
        PyObject *item;
        if (p->s[at] == '\n' || p->s[at] == '#') {
            p->pos = line_end(p, at) + 1;
            if (here >= 0) { /* the item starts on a later line, or is an empty scalar after the dash */
                int indent = next_content(p);
                p->on = index_on_path(p, here, index, indent > col ? p->pos + indent : dash + 1);
            }
            item = block_value(p, col, 0);
        } else if (is_seq_entry(p, at)) {
            item = refuse(p);
        } else {
            if (here >= 0) p->on = index_on_path(p, here, index, at);
            Py_ssize_t after;
            PyObject *key = key_at(p, at, &after);
            if (key != NULL) {
                item = mapping(p, at, (int)(at - p->pos), key, after);
            } else if (p->refused || PyErr_Occurred()) {
                item = NULL;
            } else {
                item = inline_value(p, at, col);
            }
        }
        p->on = here;
        if (item == NULL) goto fail;
        int appended = PyList_Append(list, item);
        Py_DECREF(item);
        if (appended < 0) goto fail;
        int indent = next_content(p);
        if (indent == col && is_seq_entry(p, p->pos + col)) continue;
        if (indent > col) {
            mark(p);
            goto fail;
        }
        break;
    }
    p->depth--;
    return list;
fail:
    Py_XDECREF(list);
    return NULL;
}

/* A block mapping whose first key is at s[at], column `col` (the line's indentation, or the column after
 * "- " for a mapping in a sequence entry). `first_key` (a reference this function takes over) and
 * `first_after` are key_at's answer for s[at] when the caller already has it, else NULL. */
static PyObject *mapping(P *p, Py_ssize_t at, int col, PyObject *first_key, Py_ssize_t first_after) {
    if (++p->depth > MAX_NEST) {
        Py_XDECREF(first_key);
        return refuse(p);
    }
    PyObject *dict = PyDict_New();
    if (dict == NULL) {
        Py_XDECREF(first_key);
        goto fail;
    }
    int here = p->on;
    for (;;) {
        Py_ssize_t after = first_after, key_line = p->pos;
        PyObject *key = first_key != NULL ? first_key : key_at(p, at, &after);
        first_key = NULL;
        if (key == NULL) {
            if (!PyErr_Occurred()) mark(p);
            goto fail;
        }
        p->on = here >= 0 ? key_on_path(p, here, key, at) : -1;
        Py_ssize_t i = after;
        while (p->s[i] == ' ') i++;
        PyObject *value;
        if (p->s[i] == '\n' || p->s[i] == '#') {
            p->pos = line_end(p, i) + 1;
            value = block_value(p, col, 1);
        } else {
            value = inline_value(p, i, col);
        }
        p->on = here;
        if (value == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        Py_ssize_t size = PyDict_GET_SIZE(dict);
        int stored = PyDict_SetItem(dict, key, value);
        if (stored == 0) stored = note_env(p, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (stored < 0) goto fail;
        if (PyDict_GET_SIZE(dict) == size) { /* a duplicate key: the existing path reports it */
            p->pos = key_line;
            mark(p);
            goto fail;
        }
        int indent = next_content(p);
        if (indent == col) {
            if (is_seq_entry(p, p->pos + col)) {
                /* ends this mapping when it is a sequence entry's ("- a: 1\n- b: 2" has the dash at a
                   smaller column, so this is "a: 1\n- b"): refused */
                mark(p);
                goto fail;
            }
            at = p->pos + col;
            continue;
        }
        if (indent > col) {
            mark(p);
            goto fail;
        }
        break;
    }
    p->depth--;
    return dict;
fail:
    Py_XDECREF(dict);
    return NULL;
}

/* The block node whose first line (p->pos) is indented `indent`: a sequence or a mapping. */
static PyObject *node(P *p, int indent) {
    Py_ssize_t at = p->pos + indent;
    if (is_seq_entry(p, at)) return sequence(p, indent);
    return mapping(p, at, indent, NULL, 0);
}

/* Read the document `text` (p zeroed but for the locate fields): its value (a new reference), or NULL
 * with p->refused set when it is outside the subset (or an exception). */
static PyObject *read_document(P *p, PyObject *text) {
    if (!PyUnicode_IS_ASCII(text)) {
        p->refused = 1;
        return NULL;
    }
    p->s = (const char *)PyUnicode_1BYTE_DATA(text);
    p->n = PyUnicode_GET_LENGTH(text);
    if (p->n == 0 || p->s[p->n - 1] != '\n') {
        p->refused = 1;
        return NULL;
    }
    for (Py_ssize_t i = 0; i < p->n; i++) {
        unsigned char c = (unsigned char)p->s[i];
        if ((c < 0x20 && c != '\n') || c == 0x7f) {
            p->refused = 1;
            return NULL;
        }
    }
    int indent = next_content(p);
    if (indent == 0 && p->s[p->pos] == '-' && p->s[p->pos + 1] == '-' && p->s[p->pos + 2] == '-') {
        if (end_of_line(p, p->pos + 3) < 0) return NULL;
        indent = next_content(p);
    }
    if (indent != 0) { /* empty, or an indented root */
        p->refused = 1;
        return NULL;
    }
    p->found_at = p->pos; /* the root's mark */
    PyObject *value = node(p, 0);
    if (value != NULL && next_content(p) != -1) {
        mark(p);
        Py_CLEAR(value);
    }
    return value;
}

static PyObject *parse(PyObject *module, PyObject *arg) {
    (void)module;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "parse() takes a str");
        return NULL;
    }
    last_refusal = -1;
    P p;
    memset(&p, 0, sizeof p);
    p.on = -1;
    PyObject *value = NULL, *result = NULL;
    p.strings = PyList_New(0);
    p.envs = PyList_New(0);
    if (p.strings != NULL && p.envs != NULL) value = read_document(&p, arg);
    if (value != NULL) result = PyTuple_Pack(3, value, p.strings, p.envs);
    Py_XDECREF(value);
    Py_XDECREF(p.strings);
    Py_XDECREF(p.envs);
    PyMem_Free(p.tmp.data);
    if (result == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return result;
}

static PyObject *locate(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *text, *parts;
    if (!PyArg_ParseTuple(args, "UO!:locate", &text, &PyTuple_Type, &parts)) return NULL;
    P p;
    memset(&p, 0, sizeof p);
    p.parts = &PyTuple_GET_ITEM(parts, 0);
    p.nparts = PyTuple_GET_SIZE(parts);
    p.on = 0;
    PyObject *value = read_document(&p, text), *result = NULL;
    if (value != NULL) {
        Py_ssize_t line = 0, start = 0;
        for (Py_ssize_t i = 0; i < p.found_at; i++)
            if (p.s[i] == '\n') {
                line++;
                start = i + 1;
            }
        result = Py_BuildValue("(nn)", line, p.found_at - start);
    }
    Py_XDECREF(value);
    PyMem_Free(p.tmp.data);
    if (result == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return result;
}

static PyMethodDef METHODS[] = {
    {"parse", parse, METH_O,
     "parse(text: str) -> tuple[object, list[str], list[object]] | None\n\n"
     "The value of one YAML document, with its string values (keys left out) and the value of each "
     "of its `env` keys (but null), or None when the text is outside the block "
     "subset this module reads (the caller then reads it with PyYAML). Raises MemoryError."},
    {"locate", locate, METH_VARARGS,
     "locate(text: str, parts: tuple[str | int, ...]) -> tuple[int, int] | None\n\n"
     "The 0-based (line, column) of the node at `parts` in the document `text`, or of its deepest "
     "existing ancestor, where PyYAML's marks put it (a mapping entry at its key, a sequence item at "
     "its node), or None when the text is outside the subset parse() reads. Raises MemoryError."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "_blockyaml", "One-pass reader of block YAML documents (see parse).", -1, METHODS,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__blockyaml(void) { return PyModule_Create(&MODULE); }
