#!/usr/bin/env node
// The Umpire side of a Discord bot: slash-command handlers that talk to the Umpire HTTP API,
// and the live event stream (SSE, parsed by hand). Node 20, standard library only.
//
// It does not implement Discord itself (the gateway, signature checks, command registration):
// a real bot calls onInteraction() from its interaction handler and gives watch() its
// channel's send function. See docs/bots.md. To try it without Discord:
//
//   export UMPIRE_URL=http://127.0.0.1:8080 UMPIRE_SESSION=<session id> UMPIRE_TOKEN=<token>
//   node examples/discord-bot.mjs odds '{"type": "roll", "expr": "2d6"}'
//   node examples/discord-bot.mjs act '{"type": "roll", "unit": "sir-k", "expr": "2d6+1"}'
//   node examples/discord-bot.mjs roll 3d6kh2 --unit sir-k
//   node examples/discord-bot.mjs verify
//   node examples/discord-bot.mjs watch [--after SEQ] [--count N]
//
// Options: --session ID and --token TOKEN (instead of the environment), --id INTERACTION_ID
// (act, roll: the idempotency key's source; the same id and body never act twice), --expect VERSION
// (act, roll: the version the player saw; default: the session's current version), --json
// (print the Discord interaction response instead of its text).
// Exit status: 0 done, 1 the API refused (the message says why), 2 usage or network error.

import { randomUUID } from "node:crypto";
import process from "node:process";
import { pathToFileURL } from "node:url";

const DISCORD_MAX = 2000; // characters of a Discord message
const NO_MENTIONS = { parse: [] }; // game text must never ping @everyone
const SENT_MAX = 1000; // interactions whose expect_version the bot remembers

// ---- the API --------------------------------------------------------------------------------

export class UmpireError extends Error {
  // status: the HTTP status; code, details: the error envelope's (docs/api.md, Errors)
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details ?? {};
  }
}

export class Umpire {
  // baseUrl: "http://127.0.0.1:8080"; sessionId; token: the referee's or a side's; seen: where
  // the newest {version, head} seen is kept, shared by every client of one session
  constructor({ baseUrl, sessionId, token, timeoutMs = 10000, seen = {} }) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.sessionId = sessionId;
    this.token = token;
    this.timeoutMs = timeoutMs;
    this.seen = seen;
  }

  get version() {
    return this.seen.version ?? null; // the newest session version seen
  }

  get head() {
    return this.seen.head ?? null; // its chain head: what verify checks the log against
  }

  sessionPath(suffix = "") {
    return `/v1/sessions/${encodeURIComponent(this.sessionId)}${suffix}`;
  }

  async request(method, path, { body, headers = {} } = {}) {
    const h = { Accept: "application/json", ...headers };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) h["Content-Type"] = "application/json";
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: reported below
    }
    if (!res.ok) {
      const e = json?.error ?? {};
      throw new UmpireError(res.status, e.code ?? "http_error",
                            e.message ?? `HTTP ${res.status}`, e.details);
    }
    if (json === null) throw new UmpireError(res.status, "bad_answer", "the answer is not JSON");
    this.remember(json);
    return { json, replayed: res.headers.get("Idempotent-Replay") === "true" };
  }

  // Every answer that changes a session carries version and head: keep the newest.
  remember(answer) {
    const s = answer?.session ?? answer;
    if (Number.isInteger(s?.version) && (this.version === null || s.version >= this.version)) {
      this.seen.version = s.version;
      if (typeof s.head === "string") this.seen.head = s.head;
    }
  }

  session() {
    return this.request("GET", this.sessionPath()).then((r) => r.json);
  }

  odds(action) {
    return this.request("POST", this.sessionPath("/odds"), { body: action }).then((r) => r.json);
  }

  // One action. idempotencyKey: the same key with the same body returns the first answer and
  // applies nothing, so a retry after a timeout cannot roll twice.
  async act(action, { idempotencyKey, expectVersion } = {}) {
    const body = { ...action };
    if (expectVersion !== undefined && expectVersion !== null) body.expect_version = expectVersion;
    const headers = idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {};
    try {
      return await this.request("POST", this.sessionPath("/actions"), { body, headers });
    } catch (e) {
      if (e instanceof UmpireError || !idempotencyKey) throw e;
      // A network failure: did the action commit? Sending it again with the same key is safe.
      return this.request("POST", this.sessionPath("/actions"), { body, headers });
    }
  }

  verify(head = this.head) {
    const q = head ? `?head=${encodeURIComponent(head)}` : "";
    return this.request("GET", this.sessionPath(`/verify${q}`)).then((r) => r.json);
  }

  // The live stream: yields each event (the full event object) as it commits, first the ones
  // after `after`. Reconnects by itself with Last-Event-ID, so nothing is missed or repeated.
  async *events({ after = 0, signal } = {}) {
    let last = after;
    let delay = 500;
    while (!signal?.aborted) {
      try {
        const headers = { Accept: "text/event-stream", "Last-Event-ID": String(last) };
        if (this.token) headers.Authorization = `Bearer ${this.token}`;
        const res = await fetch(`${this.baseUrl}${this.sessionPath("/events")}?after=${last}`,
                                { headers, signal });
        if (!res.ok) {
          const e = (await res.json().catch(() => null))?.error ?? {};
          throw new UmpireError(res.status, e.code ?? "http_error",
                                e.message ?? `HTTP ${res.status}`, e.details);
        }
        delay = 500;
        for await (const msg of parseSse(res.body)) {
          if (!msg.data) continue; // heartbeats are comments; nothing to do
          const ev = JSON.parse(msg.data);
          last = ev.seq;
          this.remember({ version: ev.seq, head: ev.hash });
          yield ev;
        }
      } catch (e) {
        if (signal?.aborted) return;
        if (e instanceof UmpireError && e.status < 500) throw e; // a bad token stays bad
      }
      // The stream ended (the daemon restarted or dropped a slow reader): come back.
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 30000);
    }
  }
}

// Server-Sent Events from a fetch body: yields {id, event, data} per message (the
// text/event-stream format: "field: value" lines, a blank line ends a message, ":" a comment).
export async function* parseSse(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  let msg = { id: null, event: "message", data: [] };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let m;
    while ((m = /\r\n|\r|\n/.exec(buffer)) !== null) {
      const line = buffer.slice(0, m.index);
      buffer = buffer.slice(m.index + m[0].length);
      if (line === "") {
        if (msg.data.length) yield { id: msg.id, event: msg.event, data: msg.data.join("\n") };
        msg = { id: null, event: "message", data: [] };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") msg.data.push(value);
      else if (field === "id") msg.id = value;
      else if (field === "event") msg.event = value;
    }
  }
}

// ---- what the bot says ----------------------------------------------------------------------

function clip(text) {
  return text.length <= DISCORD_MAX ? text : text.slice(0, DISCORD_MAX - 1) + "…";
}

function percent(p) {
  return `${(100 * p).toFixed(p < 0.001 ? 3 : 1)}%`;
}

export function formatOdds(answer, { top = 12 } = {}) {
  const lines = answer.outcomes
    .slice(0, top)
    .map((o) => `${percent(o.p).padStart(7)}  ${o.summary || JSON.stringify(o.result)}`);
  if (answer.outcomes.length > top) lines.push(`… ${answer.outcomes.length - top} more`);
  const named = Object.entries(answer)
    .filter(([k, v]) => k.startsWith("p_") && typeof v === "number")
    .map(([k, v]) => `${k.slice(2).replaceAll("_", " ")}: ${percent(v)}`);
  if (typeof answer.mean === "number") named.push(`mean ${answer.mean.toFixed(2)}`);
  const exact = answer.exact ? `exact, ${answer.of} combinations` : "exact";
  return clip(["```", ...lines, "```", ...named, `(${exact})`].join("\n"));
}

// Summaries and titles carry what players typed (a roll's purpose, unit names): shown as typed,
// never as Discord markdown (a purpose "[Claim prize](https://evil.example/x)" would otherwise be
// a masked link). The same escaping as the daemon's own Discord webhooks (server/live/discord_text.h).
export function escapeMarkdown(text) {
  return String(text).replace(/[\\*_~`|><#\-[\]()]/g, "\\$&").replaceAll("://", "\\://");
}

export function formatAction(answer, replayed) {
  const again = replayed ? " (already done: the same command is not applied twice)" : "";
  return clip(`${escapeMarkdown(answer.summary)}${again}\n-# version ${answer.version}, head ${answer.head}`);
}

export function formatEvent(ev) {
  const summary = ev.data?.summary;
  if (summary) return clip(`#${ev.seq} ${escapeMarkdown(summary)}`);
  if (ev.type === "session_created")
    return `#${ev.seq} session created: ${escapeMarkdown(ev.data.title || "")}`;
  if (ev.type === "dice_seed_revealed")
    return `#${ev.seq} the dice seed was revealed: dice up to nonce ` +
           `${ev.data.last_nonce} can now be checked`;
  if (ev.type === "entropy_contributed")
    return `#${ev.seq} ${escapeMarkdown(ev.data.role)} added entropy to the dice, in force from the next die`;
  return `#${ev.seq} ${ev.type}`;
}

export function formatVerify(report) {
  if (report.ok)
    return `verified: ${report.events} events, ${report.dice_checked} dice and ` +
           `${report.actions_readjudicated} actions re-checked; head ${report.head}`;
  return `NOT verified: event ${report.first_bad_seq} cannot be trusted (${report.reason})`;
}

export function formatError(e) {
  if (!(e instanceof UmpireError)) return `Umpire is unreachable: ${e.message}`;
  let text = `${e.message} (${e.code})`;
  if (e.code === "version_conflict")
    text = `the game moved on (now version ${e.details.actual}): look again, then retry`;
  if (e.code === "dice_required" && Array.isArray(e.details.needed))
    text += "\nroll: " + e.details.needed.map((d) => `${d.notation} for ${d.purpose}`).join(", ");
  return clip(text);
}

// ---- Discord ---------------------------------------------------------------------------------

// An interaction response (type 4: a message in the channel). ephemeral: only the caller sees it.
function reply(content, { ephemeral = false } = {}) {
  return {
    type: 4,
    data: { content, allowed_mentions: NO_MENTIONS, ...(ephemeral ? { flags: 64 } : {}) },
  };
}

function option(interaction, name) {
  return interaction.data.options?.find((o) => o.name === name)?.value;
}

// The slash commands this bot registers (PUT /applications/{id}/commands on Discord's API).
export const COMMANDS = [
  { name: "odds", description: "Exact odds of an action, before you commit to it",
    options: [{ type: 3, name: "action", description: "the action as JSON", required: true }] },
  { name: "act", description: "Resolve an action",
    options: [{ type: 3, name: "action", description: "the action as JSON", required: true }] },
  { name: "roll", description: "Roll dice (generic ruleset)",
    options: [{ type: 3, name: "expr", description: "e.g. 2d6+1", required: true },
              { type: 3, name: "unit", description: "your unit", required: false }] },
  { name: "verify", description: "Check the whole game log: hashes, dice, every action" },
];

// The bot's state: one Umpire client per Discord user (each holds that player's side token),
// all on the channel's session. tokens: {discordUserId: token}; fallbackToken for the rest
// (e.g. read-only access to a public session), or null.
export class GameBot {
  constructor({ baseUrl, sessionId, tokens = {}, fallbackToken = null }) {
    this.baseUrl = baseUrl;
    this.sessionId = sessionId;
    this.tokens = tokens;
    this.fallbackToken = fallbackToken;
    this.clients = new Map();
    this.seen = {}; // the newest version and head, from answers and the stream alike
    this.sent = new Map(); // idempotency key -> the expect_version sent with it (oldest first)
  }

  clientFor(userId) {
    const token = this.tokens[userId] ?? this.fallbackToken;
    if (!token) return null;
    if (!this.clients.has(token))
      this.clients.set(token, new Umpire({ baseUrl: this.baseUrl, sessionId: this.sessionId,
                                           token, seen: this.seen }));
    return this.clients.get(token);
  }

  // Call this from the Discord interaction handler; returns the interaction response.
  // expectVersion: the version the player acted on (a button carries it); by default the
  // newest version the bot has seen, i.e. the last one it showed in the channel.
  async onInteraction(interaction, { expectVersion } = {}) {
    return (await this.run(interaction, { expectVersion })).response;
  }

  // The same, with the failure if there was one: {response, error} (error null on success).
  async run(interaction, { expectVersion } = {}) {
    const fail = (error, text) => ({ response: reply(text, { ephemeral: true }), error });
    const userId = interaction.member?.user?.id ?? interaction.user?.id;
    const umpire = this.clientFor(userId);
    if (!umpire) return fail(new Error("no token"), "you hold no side in this game");
    const name = interaction.data.name;
    try {
      if (name === "verify") {
        const report = await umpire.verify();
        return { response: reply(formatVerify(report)),
                 error: report.ok ? null : new Error("not verified") };
      }
      let action;
      if (name === "roll") {
        action = { type: "roll", expr: option(interaction, "expr") };
        const unit = option(interaction, "unit");
        if (unit) action.unit = unit;
      } else if (name === "odds" || name === "act") {
        try {
          action = JSON.parse(option(interaction, "action"));
        } catch (e) {
          return fail(e, 'the action must be JSON, e.g. {"type": "roll", "expr": "2d6"}');
        }
      } else {
        return fail(new Error("unknown command"), `unknown command ${name}`);
      }
      if (name === "odds") {
        return { response: reply(formatOdds(await umpire.odds(action)), { ephemeral: true }),
                 error: null };
      }
      // The interaction id is unique per use of a command: as the idempotency key it makes a
      // retried delivery, or a retry after a timeout, safe, provided the body is the same
      // again, expect_version included: so a key's version is remembered.
      const idempotencyKey = `discord-${interaction.id}`;
      if (this.sent.has(idempotencyKey)) {
        expectVersion = this.sent.get(idempotencyKey);
      } else if (expectVersion === undefined) {
        if (umpire.version === null) await umpire.session();
        expectVersion = umpire.version;
      }
      this.sent.set(idempotencyKey, expectVersion);
      if (this.sent.size > SENT_MAX) this.sent.delete(this.sent.keys().next().value);
      const { json, replayed } = await umpire.act(action, { idempotencyKey, expectVersion });
      return { response: reply(formatAction(json, replayed)), error: null };
    } catch (e) {
      return fail(e, formatError(e));
    }
  }

  // Posts every new event to the channel until signal aborts: post(text, event) is the bot's
  // channel.send. after: the seq to start after (default: the session's current version, so
  // the channel sees what happens next, not the history). Reads with the fallback token, else
  // any player's (every token of the session may read it; a public session needs none).
  async watch(post, { after, signal } = {}) {
    const token = this.fallbackToken ?? Object.values(this.tokens)[0] ?? null;
    const umpire = new Umpire({ baseUrl: this.baseUrl, sessionId: this.sessionId, token,
                                seen: this.seen });
    if (after === undefined) after = (await umpire.session()).session.version;
    for await (const ev of umpire.events({ after, signal })) await post(formatEvent(ev), ev);
  }
}

// ---- the command line: a stand-in for Discord ------------------------------------------------

function parseArgs(argv) {
  const args = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") args.json = true;
    else if (a.startsWith("--")) {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      args[a.slice(2)] = argv[++i];
    } else args._.push(a);
  }
  return args;
}

function usage() {
  process.stderr.write(
    "usage: discord-bot.mjs odds|act JSON | roll EXPR [--unit U] | verify | " +
    "watch [--after SEQ] [--count N]\n" +
    "  [--session ID] [--token T] [--id INTERACTION_ID] [--expect VERSION] [--json]\n" +
    "  environment: UMPIRE_URL (default http://127.0.0.1:8080), UMPIRE_SESSION, UMPIRE_TOKEN\n");
  return 2;
}

async function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    return usage();
  }
  const [command, arg] = args._;
  const baseUrl = process.env.UMPIRE_URL || "http://127.0.0.1:8080";
  const sessionId = args.session ?? process.env.UMPIRE_SESSION;
  const token = args.token ?? process.env.UMPIRE_TOKEN ?? null;
  if (!command || !sessionId) return usage();
  const user = "cli-user";
  const bot = new GameBot({ baseUrl, sessionId, tokens: token ? { [user]: token } : {} });

  if (command === "watch") {
    const count = args.count === undefined ? Infinity : Number(args.count);
    const controller = new AbortController();
    process.once("SIGINT", () => controller.abort());
    let seen = 0;
    if (count <= 0) return 0;
    try {
      await bot.watch(async (text, ev) => {
        process.stdout.write((args.json ? JSON.stringify(ev) : text) + "\n");
        if (++seen >= count) controller.abort(); // ends the stream
      }, { after: args.after === undefined ? undefined : Number(args.after),
           signal: controller.signal });
    } catch (e) {
      process.stderr.write(formatError(e) + "\n");
      return e instanceof UmpireError ? 1 : 2;
    }
    return 0;
  }

  const options = [];
  if (command === "odds" || command === "act") {
    if (!arg) return usage();
    options.push({ name: "action", value: arg });
  } else if (command === "roll") {
    if (!arg) return usage();
    options.push({ name: "expr", value: arg });
    if (args.unit) options.push({ name: "unit", value: args.unit });
  } else if (command !== "verify") {
    return usage();
  }
  // What Discord would send: a slash-command interaction (the parts the handlers read).
  const interaction = {
    id: args.id ?? randomUUID(),
    type: 2,
    member: { user: { id: user } },
    data: { name: command, options },
  };
  const expectVersion = args.expect === undefined ? undefined : Number(args.expect);
  const { response, error } = await bot.run(interaction, { expectVersion });
  process.stdout.write((args.json ? JSON.stringify(response) : response.data.content) + "\n");
  if (!error) return 0;
  return error instanceof UmpireError || error.message === "not verified" ? 1 : 2;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
    process.stderr.write(`${e.stack ?? e}\n`);
    process.exit(2);
  });
}
