"""examples/discord-bot.mjs against a live daemon: the slash-command handlers (odds, act, roll,
verify) and the SSE watcher, through the example's command line. Skipped only when node (18 or
later, for fetch) is absent."""

import json
import os
import shutil
import subprocess

import pytest

from umpire_client import REPO_ROOT, random_hex
from umpire_ref import discord_escaped

NODE = shutil.which("node")
EXAMPLE = REPO_ROOT / "examples" / "discord-bot.mjs"


def node_major():
    if NODE is None:
        return 0
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True).stdout
    return int(out.strip().lstrip("v").split(".")[0] or 0)


pytestmark = pytest.mark.skipif(node_major() < 18, reason="node 18 or later is not installed")


def bot_env(daemon, session, token):
    env = dict(os.environ, UMPIRE_URL=f"http://127.0.0.1:{daemon.port}", UMPIRE_SESSION=session)
    env.pop("UMPIRE_TOKEN", None)
    if token is not None:
        env["UMPIRE_TOKEN"] = token
    return env


def bot(daemon, session, token, *args, url=None):
    """(exit status, stdout, stderr) of one run of the example."""
    env = bot_env(daemon, session, token)
    if url is not None:
        env["UMPIRE_URL"] = url
    p = subprocess.run([NODE, str(EXAMPLE), *args], env=env, capture_output=True, text=True,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def new_game(umpire, mode="server"):
    made = umpire.create_session(sides=("knight", "monsters"), mode=mode,
                                 units=[{"id": "sir-k", "side": "knight"},
                                        {"id": "bat-1", "side": "monsters"}])
    return (made["session"]["id"], made["tokens"]["referee"], made["tokens"]["sides"]["knight"])


def test_odds_act_watch_verify(umpire):
    d = umpire.daemon
    sid, ref, knight = new_game(umpire)

    rc, out, err = bot(d, sid, knight, "odds", '{"type": "roll", "expr": "2d6"}')
    assert rc == 0, err
    assert "16.7%  total 7" in out and "(exact, 36 combinations)" in out, out

    watcher = subprocess.Popen([NODE, str(EXAMPLE), "watch", "--after", "1", "--count", "3",
                                "--json"], env=bot_env(d, sid, knight),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        roll = '{"type": "roll", "unit": "sir-k", "expr": "2d6+1"}'
        rc, out, err = bot(d, sid, knight, "act", roll, "--id", "i-1", "--expect", "1")
        assert rc == 0, out + err
        events, last = umpire.events(sid, token=ref)
        assert last["version"] == 2
        assert out.splitlines()[0] == discord_escaped(events[1]["data"]["summary"])
        assert f"version 2, head {last['head']}" in out

        # The same interaction delivered again: the stored answer, nothing rolled.
        rc, again, err = bot(d, sid, knight, "act", roll, "--id", "i-1", "--expect", "1")
        assert rc == 0, again + err
        assert again.splitlines()[0] == out.splitlines()[0] + " (already done: the same " \
            "command is not applied twice)", again
        assert umpire.session(sid, token=ref)["version"] == 2

        # A player acting on what he saw at version 1, now stale.
        rc, out, err = bot(d, sid, knight, "act", roll, "--id", "i-2", "--expect", "1")
        assert rc == 1 and "moved on (now version 2)" in out, out + err
        # Another side's unit, bad notation: the daemon's refusals, told to the player.
        rc, out, err = bot(d, sid, knight, "roll", "3d6kh2", "--unit", "bat-1")
        assert rc == 1 and "(forbidden)" in out, out + err
        rc, out, err = bot(d, sid, knight, "roll", "2d", "--unit", "sir-k")
        assert rc == 1 and "(invalid_notation)" in out, out + err
        assert umpire.session(sid, token=ref)["version"] == 2

        # Without --expect the bot acts on the version it reads.
        rc, out, err = bot(d, sid, knight, "roll", "1d20", "--unit", "sir-k")
        assert rc == 0 and "knight rolled 1d20 = " in out, out + err
        rc, out, err = bot(d, sid, ref, "act", '{"type": "roll", "expr": "1d4"}', "--json")
        assert rc == 0, out + err
        response = json.loads(out)
        assert response["type"] == 4
        assert response["data"]["allowed_mentions"] == {"parse": []}
        assert response["data"]["content"].startswith("referee rolled 1d4 = ")

        streamed, werr = watcher.communicate(timeout=30)
        assert watcher.returncode == 0, werr
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    events, last = umpire.events(sid, token=ref)
    assert [json.loads(line) for line in streamed.splitlines()] == events[1:4]

    rc, out, err = bot(d, sid, knight, "verify")
    assert rc == 0, out + err
    assert out.strip() == (f"verified: 4 events, 0 dice and 3 actions re-checked; "
                           f"head {last['head']}")


def test_errors_are_told_not_thrown(umpire):
    d = umpire.daemon
    sid, ref, knight = new_game(umpire, mode="manual")
    rc, out, err = bot(d, sid, knight, "roll", "2d6", "--unit", "sir-k")
    assert rc == 1 and "(dice_required)" in out and "roll: 2d6 for roll" in out, out + err
    rc, out, err = bot(d, sid, random_hex(32), "verify")
    assert rc == 1 and "(unauthorized)" in out, out + err
    rc, out, err = bot(d, sid, knight, "act", "{not json")
    assert rc == 2 and "must be JSON" in out, out + err
    rc, out, err = bot(d, sid, knight, "verify", url="http://127.0.0.1:1")
    assert rc == 2 and "unreachable" in out, out + err
    rc, out, err = bot(d, sid, knight, "launch")
    assert rc == 2 and "usage" in err
    rc, out, err = bot(d, sid, knight, "watch", "--after", "0", "--count", "1", "--token",
                       random_hex(32))
    assert rc == 1 and "(unauthorized)" in err, out + err
    assert umpire.session(sid, token=ref)["version"] == 1


BOT_SCRIPT = """
import { GameBot, COMMANDS } from %s;
const [url, session, knight, monsters] = process.argv.slice(1);
const bot = new GameBot({ baseUrl: url, sessionId: session,
                          tokens: { alice: knight, bob: monsters } });
const posted = [];
const stop = new AbortController();
const watching = bot.watch(async (text) => {
  posted.push(text);
  if (posted.length === 3) stop.abort();
}, { signal: stop.signal, after: 1 });  // from the start: no race with the rolls
const roll = (id, user, expr, unit) => bot.onInteraction({
  id, type: 2, member: { user: { id: user } },
  data: { name: "roll",
          options: [{ name: "expr", value: expr }, { name: "unit", value: unit }] } });
const replies = [];
replies.push(await roll("1", "alice", "1d6", "sir-k"));
replies.push(await roll("2", "bob", "1d8", "bat-1"));
replies.push(await roll("3", "alice", "1d10", "sir-k"));   // acts on version 3, seen from bob's
replies.push(await roll("4", "carol", "1d6", "sir-k"));   // holds no side
await watching;
console.log(JSON.stringify({ replies, posted, commands: COMMANDS.map((c) => c.name) }));
"""


def test_game_bot_module(umpire):
    """GameBot as a real bot would use it: two players, the channel fed by watch()."""
    d = umpire.daemon
    made = umpire.create_session(sides=("knight", "monsters"), mode="server",
                                 units=[{"id": "sir-k", "side": "knight"},
                                        {"id": "bat-1", "side": "monsters"}])
    sid, ref = made["session"]["id"], made["tokens"]["referee"]
    script = BOT_SCRIPT % json.dumps(EXAMPLE.resolve().as_uri())
    sides = made["tokens"]["sides"]
    p = subprocess.run([NODE, "--input-type=module", "-e", script, f"http://127.0.0.1:{d.port}",
                        sid, sides["knight"], sides["monsters"]],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    texts = [r["data"]["content"] for r in out["replies"]]
    assert texts[0].startswith("knight rolled 1d6 = ")
    assert texts[1].startswith("monsters rolled 1d8 = ")
    assert texts[2].startswith("knight rolled 1d10 = "), texts[2]
    assert texts[3] == "you hold no side in this game" and out["replies"][3]["data"]["flags"] == 64
    events, _ = umpire.events(sid, token=ref)
    assert out["posted"] == [f"#{e['seq']} {discord_escaped(e['data']['summary'])}"
                             for e in events[1:]]
    assert out["commands"] == ["odds", "act", "roll", "verify"]
