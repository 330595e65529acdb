// SPDX-License-Identifier: MIT
/* The terminal over ncursesw: see tui.h. */
#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include "tui.h"

static bool open_;
static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

int tui_signal(void)
{
	return stop_sig;
}

int tui_open(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "tally: the browser needs a terminal (use --stdio)\n");
		return -1;
	}
	setlocale(LC_ALL, "");
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, "tally: cannot drive this terminal (TERM=%s): text instead\n",
			getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	open_ = true;
	atexit(tui_close);
	/* no SA_RESTART: a signal wakes the key wait, which then says QUIT */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_WHITE, COLOR_BLUE);
		init_pair(2, COLOR_BLACK, COLOR_CYAN);
		init_pair(3, COLOR_RED, -1);
		init_pair(4, COLOR_GREEN, -1);
		init_pair(5, COLOR_BLUE, -1);
		init_pair(6, COLOR_BLACK, COLOR_YELLOW);
		init_pair(7, COLOR_BLACK, COLOR_RED);
	}
	return 0;
}

void tui_close(void)
{
	if (!open_)
		return;
	open_ = false;
	curs_set(1);
	endwin();
	fflush(stdout);
}

int tui_rows(void)
{
	return LINES;
}

int tui_cols(void)
{
	return COLS;
}

int tui_key(int timeout_ms)
{
	int c;

	if (stop_sig)
		return TUI_KEY_QUIT;
	timeout(timeout_ms);
	c = getch();
	if (stop_sig)
		return TUI_KEY_QUIT;
	switch (c) {
	case ERR: return TUI_KEY_NONE;
	case KEY_RESIZE: return TUI_KEY_RESIZE;
	case KEY_UP: return TUI_KEY_UP;
	case KEY_DOWN: return TUI_KEY_DOWN;
	case KEY_LEFT: return TUI_KEY_LEFT;
	case KEY_RIGHT: return TUI_KEY_RIGHT;
	case KEY_PPAGE: return TUI_KEY_PGUP;
	case KEY_NPAGE: return TUI_KEY_PGDN;
	case KEY_HOME: return TUI_KEY_HOME;
	case KEY_END: return TUI_KEY_END;
	case KEY_ENTER: case '\r': case '\n': return TUI_KEY_ENTER;
	case KEY_BACKSPACE: case 127: case 8: return TUI_KEY_BACKSPACE;
	case 27: return TUI_KEY_ESC;
	case '\t': return TUI_KEY_TAB;
	case KEY_BTAB: return TUI_KEY_BTAB;
	case 3: return TUI_KEY_QUIT;	/* Ctrl-C where the terminal sends it raw */
	default: return c;
	}
}

void tui_clear(void)
{
	erase();
}

static attr_t attr_of(enum tui_attr a)
{
	static const struct { int pair; attr_t mono; } map[] = {
		[TUI_NORMAL] = { 0, A_NORMAL }, [TUI_SELECTED] = { 2, A_REVERSE },
		[TUI_TITLE] = { 1, A_REVERSE }, [TUI_HOT] = { 3, A_BOLD },
		[TUI_WARM] = { 4, A_NORMAL }, [TUI_DIM] = { 5, A_DIM },
		[TUI_FRAME0] = { 6, A_REVERSE },
	};

	if ((int)a > TUI_FRAME0)	/* frames alternate their colours */
		return has_colors() ? COLOR_PAIR(6 + (a - TUI_FRAME0) % 2) : A_REVERSE;
	return has_colors() && map[a].pair ? COLOR_PAIR(map[a].pair) : map[a].mono;
}

int tui_width(const char *s)
{
	mbstate_t st = { 0 };
	int w = 0;

	while (*s) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, strlen(s), &st);
		int cw;

		if (n == (size_t)-1 || n == (size_t)-2) {	/* a bad byte: one column */
			memset(&st, 0, sizeof(st));
			n = 1;
			wc = '?';
		}
		cw = wcwidth(wc);
		w += cw > 0 ? cw : 0;
		s += n ? n : 1;
	}
	return w;
}

void tui_text(int y, int x, int w, enum tui_attr a, const char *s, bool fill)
{
	mbstate_t st = { 0 };
	attr_t at = attr_of(a);
	int used = 0;

	if (y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attron(at);
	move(y, x);
	while (s && *s && used < w) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, strlen(s), &st);
		int cw;

		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			n = 1;
			wc = '?';
		}
		if (wc == '\t')
			wc = ' ';
		cw = wcwidth(wc);
		if (cw < 0)
			wc = '?', cw = 1;
		if (used + cw > w)
			break;
		addnwstr(&wc, 1);
		used += cw;
		s += n ? n : 1;
	}
	for (; fill && used < w; used++)
		addch(' ');
	attroff(at);
}

void tui_box(int y, int x, int h, int w, enum tui_attr a)
{
	attr_t at = attr_of(a);

	if (h < 2 || w < 2 || y < 0 || x < 0 || y + h > LINES || x + w > COLS)
		return;
	attron(at);
	mvaddch(y, x, ACS_ULCORNER);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	attroff(at);
}

void tui_show(void)
{
	refresh();
}

char *tui_prompt(const char *prompt)
{
	char buf[256];
	size_t n = 0;

	buf[0] = 0;
	curs_set(1);
	for (;;) {
		char line[300];
		int c;

		snprintf(line, sizeof(line), "%s%s", prompt, buf);
		tui_text(LINES - 1, 0, COLS, TUI_TITLE, line, true);
		move(LINES - 1, tui_width(line) < COLS ? tui_width(line) : COLS - 1);
		refresh();
		c = tui_key(-1);
		if (c == TUI_KEY_ENTER)
			break;
		if (c == TUI_KEY_ESC || c == TUI_KEY_QUIT) {
			curs_set(0);
			return NULL;
		}
		if (c == TUI_KEY_BACKSPACE && n)
			buf[--n] = 0;
		else if (c >= 32 && c < 256 && n + 1 < sizeof(buf))
			buf[n++] = (char)c, buf[n] = 0;
	}
	curs_set(0);
	return strdup(buf);
}
