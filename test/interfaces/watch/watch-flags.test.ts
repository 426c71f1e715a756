import { describe, expect, it } from "vitest";
import { runCli, stackDir } from "../cli/cli-harness";
import { G } from "../../domain/stack/bad-stacks";

// Bad flags of watch and audit verify: one line, exit 1, before anything is started or read.
const dir = stackDir({ "Pulumi.f.yaml": `config:\n  stackwarden:subscriptionId: ${G}\n` });
const NOWHERE = "http://127.0.0.1:9";

describe("watch and audit verify refuse bad flags in one line", () => {
  it.each([
    [["--interval", "30"], /--interval <duration>' argument '30' is invalid\. expected a duration such as 500ms, 30s, 5m or 1h30m/],
    [["--interval", "5m", "--schedule", "*/5 * * * *"], /give either --interval or --schedule, not both/],
    [["--schedule", "bogus"], /--schedule: invalid cron expression "bogus"/],
    [["--auto-apply"], /--auto-apply applies new commits: it needs --git DIR/],
    [["--git", "/nonexistent-stackwarden"], /--git \/nonexistent-stackwarden: no such directory/],
    [["--listen", "9090"], /expected HOST:PORT such as 127\.0\.0\.1:9090/],
    [["--grace", "later"], /--grace <duration>' argument 'later' is invalid/],
    [["--changes", "maybe"], /--changes <on\|off>' argument 'maybe' is invalid\. Allowed choices are on, off/],
    [["--changes-interval", "500ms"], /the changes interval must be at least 1s, got "500ms"/],
    [["--events"], /--events accepts deliveries on the --listen address: give --listen HOST:PORT/],
    [["--events", "--listen", "127.0.0.1:0", "--changes", "off"], /--events feeds the change records: not with --changes off/],
    [["--events-secret-env", "EG_SECRET"], /--events-secret-env authenticates --events: give --events too/],
    [
      ["--events", "--listen", "127.0.0.1:0", "--events-secret-env", "STACKWARDEN_UNSET_SECRET"],
      /--events-secret-env STACKWARDEN_UNSET_SECRET: that variable is not set/,
    ],
    [
      ["--events", "--listen", "0.0.0.0:0"],
      /SW_EVENTS_UNAUTHENTICATED: --events on 0\.0\.0\.0, which is not a loopback address, needs a shared secret/,
    ],
  ])("watch %j", async (args, message) => {
    const r = await runCli(["watch", "--config", "Pulumi.f.yaml", ...args], NOWHERE, dir);
    expect(r.code).toBe(1);
    expect(r.err.split("\n")).toHaveLength(1);
    expect(r.err).toMatch(message);
    expect(r.out).toBe("");
  });

  it("a bad stack file at start is an error at once", async () => {
    const bad = stackDir({ "Pulumi.bad.yaml": "config:\n  stackwarden:subscriptionId: nope\n" });
    const r = await runCli(["watch", "--config", "Pulumi.bad.yaml"], NOWHERE, bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Pulumi\.bad\.yaml:2:\d+: .*subscriptionId/);
  });

  it("audit verify needs one of --stack or --file", async () => {
    for (const args of [[], ["--stack", "a", "--file", "b"]]) {
      const r = await runCli(["audit", "verify", ...args], NOWHERE, dir);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/which trail\? give --stack NAME or --file PATH/);
    }
  });

  it.each([["abc123"], ["g".repeat(64)], ["0".repeat(63)], ["0".repeat(65)]])("audit verify --expect-head %s", async (hash) => {
    const r = await runCli(["audit", "verify", "--stack", "nothing-here", "--expect-head", hash], NOWHERE, dir);
    expect(r.code).toBe(1);
    expect(r.err.split("\n")).toHaveLength(1);
    expect(r.err).toContain(`--expect-head <sha256>' argument '${hash}' is invalid. expected the 64-hex sha256 that audit verify prints`);
    expect(r.out).toBe("");
  });
});
