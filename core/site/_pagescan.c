/* The page scans, compiled. Two of them:
 *   - next_stop: the body reader's next stop, htmlscan.BodyImages' reading of a
 *     page's body with the tokenizer's rules (htmlscan._TOKEN, skip_text), an
 *     image tag's stop with the values of the attributes its reference comes
 *     from;
 *   - present: which of some words a page holds (htmlscan.words_present), all
 *     of them in one reading.
 *
 * Why they exist: the body's reading in Python regular expressions took
 * 707,000 instructions on a 3 KB page of tests/benchmarks/bench_build.py,
 * next_stop 148,000 (most of them the Python that acts on each stop), and the
 * body's images were most of a `sitemapkit build --images` (issue 26). A
 * page's eleven words, each looked for with `in`, took 20 us of the page's
 * 40; present takes 1.3. They are optional: where they were not built,
 * htmlscan reads the page with its own patterns and `in`, the same results.
 *
 * What they decide is nothing of their own. htmlscan's call of configure()
 * hands next_stop every name it stops at, the attributes it reads and every
 * word that may mark a content element, from the constants htmlscan reads them
 * from; htmlcheck hands present its words. The tests hold the stops to the
 * tokenizer's on the same pieces the quick reading is held to
 * (tests/core/test_images.py), and present to `in` (tests/core/test_htmlcheck.py).
 * The grammar is the HTML standard's tokenizer as htmlscan writes it:
 *   - text up to a "<"; a "<" that opens nothing is text;
 *   - "<!--" a comment: "<!-->" and "<!--->" whole, else to the first "-->" or
 *     "--!>", or the end of the data;
 *   - "<!", "<?" and "</" not followed by a letter: a bogus comment, to the
 *     first ">";
 *   - "<" or "</" and a letter: a tag, its name up to whitespace, "/" or ">",
 *     its attributes up to the first ">" outside a quoted value (quotes
 *     delimit a value only after "=");
 *   - a raw-text or RCDATA element's text up to its end tag ("</name" and
 *     whitespace, "/" or ">", then that tag's own ">"), a script's through
 *     the script data escape states.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_NAMES 32
#define MAX_NAME 16
#define MAX_WORDS 16
#define MAX_WORD 32
#define MAX_VALUES 8
#define MAX_SEARCHED 32

enum { PLAIN = 0, MAYBE = 1, RAW = 2 };

typedef struct {
    unsigned char name[MAX_NAME];
    Py_ssize_t length;
    int kind; /* an index into htmlscan's kinds, or -1 for raw text */
    int flags;
    int with_values; /* whether its stop comes with the values of value_names */
} Name;

/* Where an attribute's value is in the data; start -1 for an attribute absent. */
typedef struct {
    Py_ssize_t start, end;
} Span;

static Name starts[MAX_NAMES];
static int start_count = 0;
/* The start names by their first letter (lower case): the indexes into starts. */
static int by_first[26][MAX_NAMES];
static int by_first_count[26];
/* The attributes whose values an image stop comes with, in the order returned. */
static unsigned char value_names[MAX_VALUES][MAX_NAME];
static Py_ssize_t value_name_lengths[MAX_VALUES];
static int value_count = 0;
static unsigned char words[MAX_WORDS][MAX_WORD];
static Py_ssize_t word_lengths[MAX_WORDS];
static int word_count = 0;
static unsigned char end_template_name[MAX_NAME];
static Py_ssize_t end_template_length = 0;
static int end_template_kind = -1, inner_kind = -1, inner_end_kind = -1;
static int configured = 0;
static PyObject *kind_names = NULL; /* htmlscan's kinds, in the order of the indexes */

static inline int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static inline unsigned char lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static inline int is_letter(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Whether data[at:at+length] is `word` (lower case) in any case. */
static inline int same_word(const unsigned char *data, Py_ssize_t at, const unsigned char *word, Py_ssize_t length) {
    for (Py_ssize_t i = 0; i < length; i++) {
        if (lower(data[at + i]) != word[i])
            return 0;
    }
    return 1;
}

/* Which of value_names data[at:at+length] is (in any case), or -1. */
static int value_name(const unsigned char *data, Py_ssize_t at, Py_ssize_t length) {
    for (int i = 0; i < value_count; i++) {
        if (value_name_lengths[i] == length && same_word(data, at, value_names[i], length))
            return i;
    }
    return -1;
}

/* Where a tag's attributes end: at its ">" or the end of the data. With
 * `values`, where the value of each of value_names is, the first of a repeated
 * name counting (an attribute without a value has the empty value). */
static Py_ssize_t attributes_end(const unsigned char *data, Py_ssize_t p, Py_ssize_t n, Span *values) {
    while (p < n) {
        unsigned char c = data[p];
        if (c == '>')
            return p;
        if (is_space(c) || c == '/') {
            p++;
            continue;
        }
        Py_ssize_t name_at = p;
        p++; /* a name's first byte: any but whitespace, "/" and ">" ("=" too) */
        while (p < n && !is_space(data[p]) && data[p] != '/' && data[p] != '>' && data[p] != '=')
            p++;
        int wanted = values != NULL ? value_name(data, name_at, p - name_at) : -1;
        Py_ssize_t value_at = p, value_end = p;
        Py_ssize_t q = p;
        while (q < n && is_space(data[q]))
            q++;
        if (q < n && data[q] == '=') {
            q++;
            while (q < n && is_space(data[q]))
                q++;
            if (q < n && (data[q] == '"' || data[q] == '\'')) {
                const unsigned char *close = memchr(data + q + 1, data[q], (size_t)(n - q - 1));
                value_at = q + 1;
                value_end = close ? close - data : n;
                p = close ? value_end + 1 : n; /* left open: it runs to the end */
            } else {
                value_at = q;
                while (q < n && !is_space(data[q]) && data[q] != '>')
                    q++;
                value_end = p = q;
            }
        }
        if (wanted >= 0 && values[wanted].start < 0) {
            values[wanted].start = value_at;
            values[wanted].end = value_end;
        }
    }
    return n;
}

/* Where "</name" followed by whitespace, "/" or ">" starts at or after p, or -1. */
static Py_ssize_t end_tag_at(const unsigned char *data, Py_ssize_t p, Py_ssize_t n, const unsigned char *name,
                             Py_ssize_t length) {
    while (p < n) {
        const unsigned char *open = memchr(data + p, '<', (size_t)(n - p));
        if (open == NULL)
            return -1;
        Py_ssize_t q = open - data;
        if (q + 2 + length < n && data[q + 1] == '/' && same_word(data, q + 2, name, length)) {
            unsigned char after = data[q + 2 + length];
            if (is_space(after) || after == '/' || after == '>')
                return q;
        }
        p = q + 1;
    }
    return -1;
}

static inline int script_tag_at(const unsigned char *data, Py_ssize_t q, Py_ssize_t n, int closing) {
    /* "<script" or "</script", then whitespace, "/" or ">". */
    Py_ssize_t name_at = q + 1 + closing;
    if (name_at + 6 >= n || (closing && data[q + 1] != '/'))
        return 0;
    if (!same_word(data, name_at, (const unsigned char *)"script", 6))
        return 0;
    unsigned char after = data[name_at + 6];
    return is_space(after) || after == '/' || after == '>';
}

/* Where the "</script" ending a script's text starts, or -1 (the script data,
 * escaped and double escaped states). */
static Py_ssize_t script_text_end(const unsigned char *data, Py_ssize_t p, Py_ssize_t n) {
    enum { DATA, ESCAPED, DOUBLE_ESCAPED } state = DATA;
    while (p < n) {
        unsigned char c = data[p];
        if (c == '<') {
            if (script_tag_at(data, p, n, 1)) {
                if (state != DOUBLE_ESCAPED)
                    return p;
                state = ESCAPED; /* "</script" ends the double escape */
                p += 8;
                continue;
            }
            if (state == DATA && p + 3 < n && data[p + 1] == '!' && data[p + 2] == '-' && data[p + 3] == '-') {
                state = ESCAPED; /* its "--" may start the closing "-->" */
                p += 2;
                continue;
            }
            if (state == ESCAPED && script_tag_at(data, p, n, 0)) {
                state = DOUBLE_ESCAPED;
                p += 7;
                continue;
            }
        } else if (c == '-' && state != DATA && p + 2 < n && data[p + 1] == '-' && data[p + 2] == '>') {
            state = DATA;
            p += 3;
            continue;
        }
        p++;
    }
    return -1;
}

/* Where the text of raw-text element `name`, started at p, ends with its end tag. */
static Py_ssize_t skip_text(const unsigned char *data, Py_ssize_t p, Py_ssize_t n, const Name *name) {
    int script = name->length == 6 && memcmp(name->name, "script", 6) == 0;
    Py_ssize_t end = script ? script_text_end(data, p, n) : end_tag_at(data, p, n, name->name, name->length);
    if (end < 0)
        return n;
    Py_ssize_t close = attributes_end(data, end + 2 + name->length, n, NULL);
    return close < n ? close + 1 : n; /* an end tag left open: the text runs to the end */
}

static const Name *start_name(const unsigned char *data, Py_ssize_t at, Py_ssize_t length) {
    if (length > MAX_NAME)
        return NULL;
    int first = lower(data[at]) - 'a'; /* a tag's name starts with a letter */
    for (int i = 0; i < by_first_count[first]; i++) {
        const Name *name = &starts[by_first[first][i]];
        if (name->length == length && same_word(data, at, name->name, length))
            return name;
    }
    return NULL;
}

static int may_mark_content(const unsigned char *data, Py_ssize_t at, Py_ssize_t end) {
    for (int w = 0; w < word_count; w++) {
        Py_ssize_t length = word_lengths[w];
        for (Py_ssize_t p = at; p + length <= end; p++) {
            if (lower(data[p]) == words[w][0] && same_word(data, p, words[w], length))
                return 1;
        }
    }
    return 0;
}

/* The values at `spans` (None for an attribute absent), or None without spans. */
static PyObject *values_at(const unsigned char *data, const Span *spans) {
    if (spans == NULL)
        Py_RETURN_NONE;
    PyObject *values = PyTuple_New(value_count);
    for (int i = 0; values != NULL && i < value_count; i++) {
        PyObject *value = spans[i].start < 0 ? Py_NewRef(Py_None)
                                             : PyBytes_FromStringAndSize((const char *)data + spans[i].start,
                                                                         spans[i].end - spans[i].start);
        if (value == NULL)
            Py_CLEAR(values);
        else
            PyTuple_SET_ITEM(values, i, value);
    }
    return values;
}

/* (kind, at, end, values): the kind htmlscan named (None where the data ends
 * first), and for an image stop its values of value_names (else None). */
static PyObject *stop(int kind, Py_ssize_t at, Py_ssize_t end, const unsigned char *data, const Span *spans) {
    PyObject *name = kind >= 0 ? PyTuple_GET_ITEM(kind_names, kind) : Py_None;
    PyObject *start = PyLong_FromSsize_t(at), *stop_at = PyLong_FromSsize_t(end);
    PyObject *values = values_at(data, spans);
    PyObject *result = (start && stop_at && values) ? PyTuple_Pack(4, name, start, stop_at, values) : NULL;
    Py_XDECREF(start);
    Py_XDECREF(stop_at);
    Py_XDECREF(values);
    return result;
}

/* next_stop(data, position, innermost): called once a stop, so its arguments
 * are taken as they come (no argument parsing, no buffer acquired). */
static PyObject *next_stop(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "next_stop(data: bytes, position: int, innermost: bytes | None)");
        return NULL;
    }
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "configure() was not called");
        return NULL;
    }
    Py_ssize_t p = PyLong_AsSsize_t(args[1]);
    if (p == -1 && PyErr_Occurred())
        return NULL;
    PyObject *innermost = args[2];
    const unsigned char *inner = NULL;
    Py_ssize_t inner_length = 0;
    if (innermost != Py_None) {
        if (!PyBytes_Check(innermost)) {
            PyErr_SetString(PyExc_TypeError, "innermost: bytes or None");
            return NULL;
        }
        inner = (const unsigned char *)PyBytes_AS_STRING(innermost);
        inner_length = PyBytes_GET_SIZE(innermost);
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    int kind = -1;
    Py_ssize_t at = n, end = n;
    Span spans[MAX_VALUES];
    int with_values = 0;
    if (p < 0)
        p = 0;
    while (p < n) {
        const unsigned char *open = memchr(data + p, '<', (size_t)(n - p));
        if (open == NULL)
            break;
        Py_ssize_t q = open - data;
        if (q + 1 >= n)
            break; /* a "<" ending the data is text */
        unsigned char c = data[q + 1];
        if (c == '!' && q + 3 < n && data[q + 2] == '-' && data[q + 3] == '-') {
            Py_ssize_t s = q + 4;
            if (s < n && data[s] == '>') {
                p = s + 1;
                continue;
            }
            if (s + 1 < n && data[s] == '-' && data[s + 1] == '>') {
                p = s + 2;
                continue;
            }
            p = n;
            for (Py_ssize_t r = s; r < n;) {
                const unsigned char *dash = memchr(data + r, '-', (size_t)(n - r));
                if (dash == NULL)
                    break;
                r = dash - data;
                if (r + 2 < n && data[r + 1] == '-') {
                    if (data[r + 2] == '>') {
                        p = r + 3;
                        break;
                    }
                    if (r + 3 < n && data[r + 2] == '!' && data[r + 3] == '>') {
                        p = r + 4;
                        break;
                    }
                }
                r++;
            }
            continue;
        }
        if (c == '!' || c == '?' || (c == '/' && (q + 2 >= n || !is_letter(data[q + 2])))) {
            const unsigned char *close = memchr(data + q + 2, '>', (size_t)(n - q - 2 > 0 ? n - q - 2 : 0));
            p = close ? (close - data) + 1 : n;
            continue;
        }
        int closing = c == '/';
        Py_ssize_t name_at = q + 1 + closing;
        if (!is_letter(data[name_at])) {
            p = q + 1; /* text */
            continue;
        }
        Py_ssize_t name_end = name_at + 1;
        while (name_end < n && !is_space(data[name_end]) && data[name_end] != '/' && data[name_end] != '>')
            name_end++;
        Py_ssize_t length = name_end - name_at;
        const Name *name = closing ? NULL : start_name(data, name_at, length);
        with_values = name != NULL && name->with_values;
        for (int i = 0; with_values && i < value_count; i++)
            spans[i].start = -1;
        Py_ssize_t close = attributes_end(data, name_end, n, with_values ? spans : NULL);
        Py_ssize_t tag_end = close < n ? close + 1 : n;
        p = tag_end;
        if (closing) {
            if (length == end_template_length && same_word(data, name_at, end_template_name, length)) {
                kind = end_template_kind;
            } else if (inner != NULL && length == inner_length && same_word(data, name_at, inner, length)) {
                kind = inner_end_kind;
            } else {
                continue;
            }
            at = q;
            end = tag_end;
            break;
        }
        if (name == NULL)
            continue;
        if (name->flags == RAW) {
            p = skip_text(data, tag_end, n, name);
            continue;
        }
        if (name->flags == MAYBE) {
            if (inner != NULL && length == inner_length && same_word(data, name_at, inner, length)) {
                kind = inner_kind;
            } else if (may_mark_content(data, q, tag_end)) {
                kind = name->kind;
            } else {
                continue;
            }
        } else {
            kind = name->kind;
        }
        at = q;
        end = tag_end;
        break;
    }
    return stop(kind, at, end, data, kind >= 0 && with_values ? spans : NULL);
}

/* present(): the words it was last asked for, and what it reads them by. The
 * data is read a pair of bytes every `stride` bytes, where `stride` is one less
 * than the shortest word of two bytes or more (at most MAX_STRIDE): each
 * occurrence of such a word then holds one pair read, at one of its first
 * `stride` offsets. Each pair a word holds there has a slot, listing the
 * (word, offset) it starts; any other pair has none, and is passed over. */
#define MAX_STRIDE 4
#define MAX_ENTRIES (MAX_SEARCHED * MAX_STRIDE)
static PyObject *searched = NULL;
static Py_ssize_t stride = 1;
static unsigned char slot_of[65536]; /* 0 for none, else 1 + its slot */
static unsigned int slot_pairs[MAX_ENTRIES];
static int slot_count = 0;
static int slot_starts[MAX_ENTRIES + 1]; /* a slot's entries: slot_starts[slot] up to slot_starts[slot + 1] */
static unsigned char entry_words[MAX_ENTRIES], entry_offsets[MAX_ENTRIES];

/* Each byte in lower case (ASCII letters only, as bytes.lower()): present() reads in any case. */
static unsigned char folded[256];

static inline unsigned int pair_at(const unsigned char *text, Py_ssize_t at) {
    return (unsigned int)folded[text[at]] << 8 | folded[text[at + 1]];
}

/* Whether data[at:at+length] is `word` in any case. */
static inline int same_folded(const unsigned char *data, Py_ssize_t at, const unsigned char *word, Py_ssize_t length) {
    for (Py_ssize_t i = 0; i < length; i++) {
        if (folded[data[at + i]] != folded[word[i]])
            return 0;
    }
    return 1;
}

static int search_for(PyObject *words) {
    if (words == searched)
        return 0; /* the same words as the last call (htmlcheck asks with one tuple a build) */
    Py_ssize_t count = PyTuple_GET_SIZE(words);
    if (count > MAX_SEARCHED) {
        PyErr_SetString(PyExc_ValueError, "too many words");
        return -1;
    }
    Py_ssize_t shortest = MAX_STRIDE + 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *word = PyTuple_GET_ITEM(words, i);
        if (!PyBytes_Check(word)) {
            PyErr_SetString(PyExc_TypeError, "words: a tuple of bytes");
            return -1;
        }
        if (PyBytes_GET_SIZE(word) >= 2 && PyBytes_GET_SIZE(word) < shortest)
            shortest = PyBytes_GET_SIZE(word);
    }
    for (int slot = 0; slot < slot_count; slot++)
        slot_of[slot_pairs[slot]] = 0;
    stride = shortest - 1;
    /* The entries, each (pair, word, offset), grouped by pair. */
    unsigned int pairs[MAX_ENTRIES];
    int entries = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *word = PyTuple_GET_ITEM(words, i);
        if (PyBytes_GET_SIZE(word) < 2)
            continue;
        for (Py_ssize_t offset = 0; offset < stride; offset++) {
            int at = entries++;
            unsigned int pair = pair_at((const unsigned char *)PyBytes_AS_STRING(word), offset);
            while (at > 0 && pairs[at - 1] > pair) { /* insertion: few entries */
                pairs[at] = pairs[at - 1];
                entry_words[at] = entry_words[at - 1];
                entry_offsets[at] = entry_offsets[at - 1];
                at--;
            }
            pairs[at] = pair;
            entry_words[at] = (unsigned char)i;
            entry_offsets[at] = (unsigned char)offset;
        }
    }
    slot_count = 0;
    for (int e = 0; e < entries; e++) {
        if (e == 0 || pairs[e] != pairs[e - 1]) {
            slot_pairs[slot_count] = pairs[e];
            slot_starts[slot_count] = e;
            slot_count++;
            slot_of[pairs[e]] = (unsigned char)slot_count;
        }
    }
    slot_starts[slot_count] = entries;
    Py_INCREF(words);
    Py_XSETREF(searched, words);
    return 0;
}

/* present(data, words): those of words (a tuple of bytes) that data holds in
 * any case, in their order: each word's `in` of the lowered data, in one
 * reading of the data (no lowered copy made). */
static PyObject *present(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "present(data: bytes, words: tuple[bytes, ...])");
        return NULL;
    }
    PyObject *words = args[1];
    if (search_for(words) < 0)
        return NULL;
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t count = PyTuple_GET_SIZE(words);
    char found[MAX_SEARCHED];
    const unsigned char *texts[MAX_SEARCHED];
    Py_ssize_t lengths[MAX_SEARCHED];
    Py_ssize_t missing = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *word = PyTuple_GET_ITEM(words, i);
        texts[i] = (const unsigned char *)PyBytes_AS_STRING(word);
        lengths[i] = PyBytes_GET_SIZE(word);
        if (lengths[i] < 2) { /* the empty word is in any data; one byte is a memchr in each case */
            unsigned char low = lengths[i] ? folded[texts[i][0]] : 0;
            unsigned char high = (low >= 'a' && low <= 'z') ? (unsigned char)(low - 32) : low;
            found[i] = lengths[i] == 0 ||
                       (n > 0 && (memchr(data, low, (size_t)n) != NULL || memchr(data, high, (size_t)n) != NULL));
        }
        else
            found[i] = 0;
        missing += !found[i];
    }
    for (Py_ssize_t q = 0; missing > 0 && q + 1 < n; q += stride) {
        int slot = slot_of[pair_at(data, q)];
        if (slot == 0)
            continue;
        for (int e = slot_starts[slot - 1]; e < slot_starts[slot]; e++) {
            int i = entry_words[e];
            Py_ssize_t at = q - entry_offsets[e];
            if (!found[i] && at >= 0 && at + lengths[i] <= n && same_folded(data, at, texts[i], lengths[i])) {
                found[i] = 1;
                missing--;
            }
        }
    }
    PyObject *result = PyList_New(0);
    for (Py_ssize_t i = 0; result != NULL && i < count; i++) {
        if (found[i] && PyList_Append(result, PyTuple_GET_ITEM(words, i)) < 0)
            Py_CLEAR(result);
    }
    return result;
}

static int copy_name(PyObject *bytes, unsigned char *into, Py_ssize_t limit, Py_ssize_t *length) {
    if (!PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) == 0 || PyBytes_GET_SIZE(bytes) > limit) {
        PyErr_SetString(PyExc_ValueError, "a name: non-empty bytes, short");
        return -1;
    }
    *length = PyBytes_GET_SIZE(bytes);
    memcpy(into, PyBytes_AS_STRING(bytes), (size_t)*length);
    return 0;
}

static int add_starts(PyObject *names, int flags) {
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(names, &position, &key, &value)) {
        if (start_count >= MAX_NAMES) {
            PyErr_SetString(PyExc_ValueError, "too many names");
            return -1;
        }
        Name *name = &starts[start_count];
        if (copy_name(key, name->name, MAX_NAME, &name->length) < 0)
            return -1;
        name->kind = (int)PyLong_AsLong(value);
        if (PyErr_Occurred())
            return -1;
        if (name->kind < 0 || name->kind >= PyTuple_GET_SIZE(kind_names)) {
            PyErr_SetString(PyExc_ValueError, "a kind outside the kinds");
            return -1;
        }
        name->flags = flags;
        name->with_values = 0;
        start_count++;
    }
    return 0;
}

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *kinds, *plain, *maybe, *raw, *content_words, *template_name, *attributes, *with_values;
    int end_template, inner, inner_end;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!SiiiO!O!", &PyTuple_Type, &kinds, &PyDict_Type, &plain, &PyDict_Type,
                          &maybe, &PyTuple_Type, &raw, &PyTuple_Type, &content_words, &template_name, &end_template,
                          &inner, &inner_end, &PyTuple_Type, &attributes, &PyTuple_Type, &with_values))
        return NULL;
    configured = 0;
    Py_INCREF(kinds);
    Py_XSETREF(kind_names, kinds);
    start_count = 0;
    word_count = 0;
    if (add_starts(plain, PLAIN) < 0 || add_starts(maybe, MAYBE) < 0)
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(raw); i++) {
        if (start_count >= MAX_NAMES) {
            PyErr_SetString(PyExc_ValueError, "too many names");
            return NULL;
        }
        Name *name = &starts[start_count];
        if (copy_name(PyTuple_GET_ITEM(raw, i), name->name, MAX_NAME, &name->length) < 0)
            return NULL;
        name->kind = -1;
        name->flags = RAW;
        name->with_values = 0;
        start_count++;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(content_words); i++) {
        if (word_count >= MAX_WORDS) {
            PyErr_SetString(PyExc_ValueError, "too many words");
            return NULL;
        }
        if (copy_name(PyTuple_GET_ITEM(content_words, i), words[word_count], MAX_WORD, &word_lengths[word_count]) < 0)
            return NULL;
        word_count++;
    }
    if (copy_name(template_name, end_template_name, MAX_NAME, &end_template_length) < 0)
        return NULL;
    Py_ssize_t kind_count = PyTuple_GET_SIZE(kinds);
    if (end_template < 0 || inner < 0 || inner_end < 0 || end_template >= kind_count || inner >= kind_count ||
        inner_end >= kind_count) {
        PyErr_SetString(PyExc_ValueError, "a kind outside the kinds");
        return NULL;
    }
    end_template_kind = end_template;
    inner_kind = inner;
    inner_end_kind = inner_end;
    value_count = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(attributes); i++) {
        if (value_count >= MAX_VALUES) {
            PyErr_SetString(PyExc_ValueError, "too many attributes");
            return NULL;
        }
        if (copy_name(PyTuple_GET_ITEM(attributes, i), value_names[value_count], MAX_NAME,
                      &value_name_lengths[value_count]) < 0)
            return NULL;
        value_count++;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(with_values); i++) {
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(with_values, i));
        if (kind == -1 && PyErr_Occurred())
            return NULL;
        for (int j = 0; j < start_count; j++) {
            if (starts[j].flags == PLAIN && starts[j].kind == kind)
                starts[j].with_values = 1;
        }
    }
    memset(by_first_count, 0, sizeof by_first_count);
    for (int i = 0; i < start_count; i++) {
        int first = lower(starts[i].name[0]) - 'a';
        if (first < 0 || first >= 26) {
            PyErr_SetString(PyExc_ValueError, "a name starting with a letter");
            return NULL;
        }
        by_first[first][by_first_count[first]++] = i;
    }
    configured = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(kinds, plain, maybe, raw, words, template, end_template, inner, inner_end, attributes, with_values): "
     "the names and kinds."},
    {"next_stop", (PyCFunction)(void (*)(void))next_stop, METH_FASTCALL,
     "next_stop(data, position, innermost) -> (kind, start, end, values); kind None where the data ends first, "
     "values those of the attributes for a stop of a kind with_values names, else None."},
    {"present", (PyCFunction)(void (*)(void))present, METH_FASTCALL,
     "present(data, words) -> the words data holds in any case, in their order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pagescan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__pagescan(void) {
    for (int c = 0; c < 256; c++)
        folded[c] = lower((unsigned char)c);
    return PyModule_Create(&module);
}
