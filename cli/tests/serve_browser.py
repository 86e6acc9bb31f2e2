#!/usr/bin/env python3
"""The page of `damka serve` in a real browser: headless Chromium, driven over the DevTools
protocol on a pipe (--remote-debugging-pipe; nothing beyond the Python standard library).

It builds the English tables up to 4 pieces, starts `damka serve` on a loopback port, loads
/?variant=english&fen=W:WK19,K23:BK28,12 and checks that the page lists every legal move,
best first, with the result and distance `damka probe` gives, and draws the position; then it
clicks the first move and checks that the board, the URL and the list follow (the list again
against `damka probe`). With --screenshot DIR it also saves PNGs of the page for English,
International and Turkish positions.

Usage: serve_browser.py DAMKA CHROMIUM [--screenshot DIR]
Exit code 0 when every check passes, 1 otherwise.
"""

import base64
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

FIRST_POSITION = "W:WK19,K23:BK28,12"
TIMEOUT = 30.0


def fail(message):
    print(f"serve_browser: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


class Server:
    """`damka serve` on 127.0.0.1, a free port; its log drained by a thread."""

    def __init__(self, damka, tables):
        self.process = subprocess.Popen(
            [damka, "serve", "--tables", tables, "--bind", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        first = self.process.stderr.readline()
        if "listening on http://" not in first:
            fail(f"damka serve did not start: {first!r}")
        self.base = "http://" + first.split("listening on http://", 1)[1].split("/", 1)[0]
        self.log = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.process.stderr:
            self.log.append(line.rstrip("\n"))

    def json(self, path):
        with urllib.request.urlopen(self.base + path, timeout=TIMEOUT) as response:
            return json.load(response)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            fail("damka serve did not stop on SIGTERM")
        if self.process.returncode != 0:
            fail(f"damka serve exited with {self.process.returncode}")


class Browser:
    """Headless Chromium with one page, commands over the DevTools pipe."""

    def __init__(self, chromium):
        self.profile = tempfile.TemporaryDirectory(prefix="damka-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        script = f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}'
        self.process = subprocess.Popen(
            ["sh", "-c", script, chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
             "--hide-scrollbars", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile.name}", "about:blank"],
            pass_fds=(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.answers = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call(
            "Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1060, "height": 760, "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def _read(self):
        buffer = b""
        while True:
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                self.answers.put(None)
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                self.answers.put(json.loads(message))

    def call(self, method, params=None, session=False):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                fail(f"Chromium did not answer {method}")
            try:
                answer = self.answers.get(timeout=left)
            except queue.Empty:
                continue
            if answer is None:
                fail(f"Chromium closed the pipe during {method}")
            if answer.get("id") != self.next_id:
                continue  # an event, or an answer to nothing we wait for
            if "error" in answer:
                fail(f"{method}: {answer['error']}")
            return answer["result"]

    def navigate(self, url):
        self.call("Page.navigate", {"url": url}, session=True)

    def evaluate(self, expression, loading=False):
        """The value of `expression` in the page; a script error fails the test, unless the
        page may still be loading (then it is None)."""
        result = self.call("Runtime.evaluate",
                           {"expression": expression, "returnByValue": True,
                            "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            if loading:
                return None
            fail(f"script error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, what, expression, check=lambda value: value not in (None, False)):
        """Polls `expression` until `check` accepts its value (by default: until it gives
        something other than null or false); returns the value."""
        deadline = time.monotonic() + TIMEOUT
        value = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression, loading=True)
            if check(value):
                return value
            time.sleep(0.1)
        fail(f"timed out waiting for {what} (last seen: {value!r})")

    def click(self, selector):
        """A real mouse click (pressed, released) at the middle of the element."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            fail(f"nothing to click at {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent",
                      {"type": kind, "x": box[0], "y": box[1], "button": "left",
                       "clickCount": 1}, session=True)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except SystemExit:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.profile.cleanup()


# What the page shows, read from its DOM.
MOVES_JS = """JSON.stringify([...document.querySelectorAll('#moves a.move')].map(a =>
    [a.dataset.move, a.dataset.category, a.dataset.dtw, a.dataset.dtc]))"""
PIECES_JS = """JSON.stringify([...document.querySelectorAll('#board .piece')].map(g =>
    [g.dataset.square, g.classList.contains('white') ? 'W' : 'B',
     g.classList.contains('king')]))"""
VERDICT_JS = "document.getElementById('verdict').textContent"


def probe_lines(damka, tables, fen):
    """`damka probe`'s answer: the result line(s), then one `MOVE RESULT [N] [rules RULES]`
    per move."""
    out = subprocess.run(
        [damka, "probe", "--variant", "english", "--fen", fen, "--tables", tables],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        fail(f"damka probe {fen}: {out.stderr.strip()}")
    lines = out.stdout.splitlines()
    result = lines[0].split()[1]
    # `dtw N` where the tables hold distances to the end, `dtc N` for a win or loss.
    found = dict(line.split(" ", 1) for line in lines if line.startswith(("dtw ", "dtc ")))
    dtw, dtc = found.get("dtw"), found.get("dtc")
    moves = [line for line in lines if not line.startswith(("result ", "dtw ", "dtc ", "rules "))]
    # The page shows the plain results: leave out each move's rule category.
    moves = [line.split(" rules ", 1)[0] for line in moves]
    return result, (dtw, dtc), moves


def fen_pieces(fen):
    """The pieces of a numeric FEN (`W:WK19,K23:BK28,12`) as sorted [square, colour, king]."""
    pieces = []
    for field in fen.split(":")[1:]:
        colour, squares = field[0], field[1:]
        for token in filter(None, squares.split(",")):
            king = token.startswith("K")
            pieces.append([token.lstrip("K"), colour, king])
    return sorted(pieces)


def rows_text(rows):
    """The moves as `damka probe` lists them: `MOVE RESULT N` with the distance to the end,
    `MOVE RESULT dtc N` without it."""
    return [f"{move} {category}" + (f" {dtw}" if dtw else f" dtc {dtc}" if dtc else "")
            for move, category, dtw, dtc in rows]


def check_position(browser, damka, tables, fen, side):
    """The page shows `fen`: its pieces, the verdict and every move as `damka probe` has it."""
    result, (dtw, dtc), expected = probe_lines(damka, tables, fen)
    rows = json.loads(browser.wait_for(
        f"the moves of {fen}",
        f"(() => {{ const m = {MOVES_JS}; const v = {VERDICT_JS};"
        f" return v.startsWith({json.dumps(side)}) && m !== '[]' ? m : null; }})()"))
    if rows_text(rows) != expected:
        fail(f"{fen}: the page lists {rows_text(rows)}, damka probe {expected}")
    verdict = browser.evaluate(VERDICT_JS)
    plies = lambda n: f"{n} ply" if n == "1" else f"{n} plies"
    want = f"{side} to move: {result}" + (
        f" in {plies(dtw)}" if dtw else f", {plies(dtc)} to a conversion" if dtc else "")
    if not verdict.startswith(want):
        fail(f"{fen}: verdict {verdict!r}, expected {want!r}")
    pieces = sorted(json.loads(browser.evaluate(PIECES_JS)))
    if pieces != fen_pieces(fen):
        fail(f"{fen}: the board shows {pieces}, the FEN has {fen_pieces(fen)}")
    return rows


def screenshots(browser, server, directory):
    """PNGs of the page for one position of each board kind."""
    shots = [("english", FIRST_POSITION),
             ("international", "W:WK46,28:BK5"),
             ("turkish", "W:Wd3,Kb2:Bf6")]
    for variant, fen in shots:
        browser.navigate(f"{server.base}/?variant={variant}&fen={fen}")
        browser.wait_for(f"the {variant} page",
                         "document.querySelectorAll('#moves a.move').length > 0"
                         " || document.getElementById('verdict').className === 'error'")
        time.sleep(0.3)
        path = os.path.join(directory, f"serve-{variant}.png")
        browser.screenshot(path)
        print(f"serve_browser: screenshot {path}")


def main():
    if len(sys.argv) < 3:
        fail("usage: serve_browser.py DAMKA CHROMIUM [--screenshot DIR]")
    damka, chromium = sys.argv[1], sys.argv[2]
    shots = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--screenshot" else None
    with tempfile.TemporaryDirectory(prefix="damka-serve-") as tables:
        built = subprocess.run(
            [damka, "generate", "--quiet", "--variant", "english", "--pieces", "4",
             "--tables", tables], capture_output=True, text=True, check=False)
        if built.returncode != 0:
            fail(f"damka generate: {built.stderr.strip()}")
        if shots:
            for variant in ("international", "turkish"):
                subprocess.run([damka, "generate", "--quiet", "--variant", variant,
                                "--pieces", "3", "--tables", tables], check=True,
                               capture_output=True)
        server = Server(damka, tables)
        browser = Browser(chromium)
        try:
            query = f"?variant=english&fen={FIRST_POSITION}"
            browser.navigate(server.base + "/" + query)
            rows = check_position(browser, damka, tables, FIRST_POSITION, "White")
            first_move = rows[0][0]
            if "x" in first_move or "-" not in first_move:
                fail(f"expected a quiet first move, got {first_move}")
            start, end = first_move.split("-")
            # The position after the move, worked out here: the piece goes from start to end.
            after = [[end if sq == start else sq, colour, king]
                     for sq, colour, king in fen_pieces(FIRST_POSITION)]
            before = browser.evaluate("location.search")
            browser.click("#moves a.move")
            search = browser.wait_for(
                "the URL to change", f"location.search !== {json.dumps(before)}"
                " && location.search")
            params = urllib.parse.parse_qs(search.lstrip("?"))
            fen = params.get("fen", [""])[0]
            if params.get("variant") != ["english"] or not fen.startswith("B:"):
                fail(f"the URL after the click is {search}")
            if sorted(after) != fen_pieces(fen):
                fail(f"the URL's FEN {fen} is not the position after {first_move}")
            if ":" not in search or "%3A" in search:
                fail(f"the URL is not readable: {search}")
            check_position(browser, damka, tables, fen, "Black")
            marks = browser.evaluate(
                "JSON.stringify([...document.querySelectorAll('#board .mark')].map(m =>"
                " m.getAttribute('class')))")
            if json.loads(marks) != ["mark from", "mark to"]:
                fail(f"the move's squares are not marked: {marks}")
            # Setting up: a black king put on the empty square 1 makes five pieces, more
            # than the tables hold; the page says so.
            browser.click('#palette button[data-tool="bk"]')
            before = browser.evaluate("location.search")
            browser.click('#board .sq[data-square="1"]')
            search = browser.wait_for(
                "the URL to follow the set-up", f"location.search !== {json.dumps(before)}"
                " && location.search")
            fen = urllib.parse.parse_qs(search.lstrip("?")).get("fen", [""])[0]
            placed = sorted(after + [["1", "B", True]])
            if fen_pieces(fen) != placed or not fen.startswith("B:"):
                fail(f"after placing a black king on 1 the URL is {search}")
            browser.wait_for("the set-up on the board", PIECES_JS,
                             lambda pieces: sorted(json.loads(pieces or "[]")) == placed)
            verdict = browser.wait_for(
                "the verdict on five pieces",
                f"{VERDICT_JS}.includes('not in the tables') && {VERDICT_JS}")
            if "5 pieces" not in verdict:
                fail(f"the page does not name the missing material: {verdict}")
            # Outside the tables the page still lists the legal moves, without results, and
            # the command that builds the tables.
            legal = subprocess.run(
                [damka, "moves", "--variant", "english", "--fen", fen],
                capture_output=True, text=True, check=True).stdout.split()
            listed = json.loads(browser.wait_for(
                "the moves outside the tables",
                "(() => { const m = [...document.querySelectorAll('#moves a.move.unrated')]"
                ".map(a => a.dataset.move); return m.length ? JSON.stringify(m) : null; })()"))
            if len(listed) != len(legal):
                fail(f"outside the tables the page lists {listed}, damka moves {legal}")
            hint = browser.evaluate("document.querySelector('#moves .hint code').textContent")
            if hint != "damka generate --variant english --pieces 5":
                fail(f"the build hint is {hint!r}")
            # A FEN pasted with its PDN tag into the FEN box sets the position up.
            browser.evaluate(
                "document.getElementById('fen').value = '[FEN \"W:WK19,K23:BK28,12\"]';"
                " document.getElementById('fen-form').requestSubmit(); true")
            check_position(browser, damka, tables, FIRST_POSITION, "White")
            print(f"serve_browser: ok ({len(rows)} moves of First Position as damka probe "
                  f"gives them; a click on {first_move} moves the board, URL and list; a king placed "
                  f"by clicking gives {fen}, not in the tables, its {len(legal)} legal moves "
                  f"listed; a pasted [FEN] tag sets First Position up)")
            if shots:
                screenshots(browser, server, shots)
        finally:
            browser.close()
            server.stop()
        logged = [line for line in server.log if line.startswith("GET /")]
        if not logged:
            fail("the server logged no request")


if __name__ == "__main__":
    main()
