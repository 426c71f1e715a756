import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { clientSetFromEnv } from "../../clients/client-set";
import { LOCK_HANDOFF_VAR, parseHandoff } from "../../domain/reconcile/lock-handoff";
import { describeHolder } from "../../domain/reconcile/stack-lock";
import type { StateStores } from "../../domain/state/state-ports";
import { formatDuration, parseDuration } from "../../platform/duration";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import { headCommit } from "../../platform/programs/git-checkout";
import { openStateStores } from "../../platform/state/open-state";
import { EngineWrites, type EngineWriteContext } from "../../usecases/engine-writes";
import { deletionWrite, tdeOutputsOf, tdeWriteOf, type TdeInputs, type TdeOutputs } from "./tde-resource";

/** How long a write of the provider waits for a stack lock another process holds (`5m`); default 0: refused at once, naming the holder. */
export const LOCK_TIMEOUT_VAR = "STACKWARDEN_LOCK_TIMEOUT";

/** The command the provider's writes are on record as (the lock's holder, the audit entry). */
export const PROVIDER_COMMAND = "pulumi up";

// The TDE provider's writes (create, update, a delete with onDelete set), as a plain `pulumi up`
// makes them: under the stack's lock and audit trail, as every apply's (src/usecases/engine-writes).
// Everything comes from the plugin's environment at call time, never from the resource's state:
// the state URL (STACKWARDEN_STATE_URL, or the project's .stackwarden), the credential, the lock
// hand-off of `apply --engine pulumi` (STACKWARDEN_LOCK_HELD). The stack is the resource's `stack`
// input (the Pulumi stack); nothing secret is an input or an output.

/** One per plugin process: the writes of a `pulumi up` that overlap share a hold of the lock. */
const writes = new EngineWrites();
let opened: { key: string; state: Promise<StateStores> } | undefined;

/** Creates or updates: sets the desired status under the stack's lock; resolves to the outputs once the audit entry is written. */
export async function writeTdeInputs(inputs: TdeInputs, env: NodeJS.ProcessEnv = process.env): Promise<TdeOutputs> {
  const read = await writes.setTde(await writeContext(inputs.stack, env), tdeWriteOf(inputs));
  return tdeOutputsOf(inputs, read);
}

/** Deletes: nothing is written unless `onDelete` names a status, which is then set under the stack's lock. */
export async function deleteTdeUnderLock(props: Partial<TdeOutputs>, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const inputs = deletionWrite(props);
  if (inputs) await writeTdeInputs(inputs, env);
}

/**
 * The project the plugin runs for: STACKWARDEN_HOME, or the nearest directory above the program's
 * (where Pulumi starts the plugin) that holds Pulumi.yaml, else the one above it. In a clone the
 * program is `stacks/`, so that is `..`; in a project that installed stackwarden the program is
 * `node_modules/stackwarden/stacks/`, and the project (its `.stackwarden/`, its `stacks/` in git)
 * is the user's, not the package's.
 */
function projectDir(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string {
  if (env.STACKWARDEN_HOME) return resolve(env.STACKWARDEN_HOME);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "Pulumi.yaml"))) return dir;
    if (dirname(dir) === dir) return resolve(cwd, "..");
  }
}

/** Where and under whose lock the writes go, read from the environment now. */
async function writeContext(stack: string | undefined, env: NodeJS.ProcessEnv): Promise<EngineWriteContext> {
  if (!stack)
    throw new StackwardenError(
      "SW_CONFIG_INVALID",
      "this TransparentDataEncryption resource names no stack (its `stack` input, which the resource class sets to the Pulumi stack): its write cannot take the stack's lock; run `pulumi up` once with this version of the program to record it, then retry",
    );
  const clients = clientSetFromEnv(env);
  const project = projectDir(env);
  const lockTimeoutMs = lockTimeoutOf(env);
  return {
    state: await stateOf(project, env, () => clients.credential),
    stackName: stack,
    clients,
    command: PROVIDER_COMMAND,
    engine: "pulumi",
    lockTimeoutMs,
    commit: () => headCommit(join(project, "stacks")),
    handoff: parseHandoff(env[LOCK_HANDOFF_VAR]),
    onLockWait: (holder) =>
      // The plugin's stderr reaches `pulumi up`'s diagnostics.
      process.stderr.write(
        `stackwarden: stack ${stack} is locked by ${describeHolder(holder)}; waiting up to ${formatDuration(lockTimeoutMs)}\n`,
      ),
  };
}

/** The state stores where the environment says, opened once per location for the plugin's life. */
function stateOf(project: string, env: NodeJS.ProcessEnv, credential: () => ReturnType<typeof clientSetFromEnv>["credential"]) {
  const key = JSON.stringify([
    project,
    env.STACKWARDEN_STATE_URL,
    env.STACKWARDEN_STATE_ACCOUNT_KEY,
    env.STACKWARDEN_LOCK_DIR,
    env.STACKWARDEN_AUDIT_DIR,
  ]);
  if (opened?.key !== key) {
    const state = openStateStores({ cwd: project, env, credential });
    opened = { key, state };
    state.catch(() => (opened = opened?.state === state ? undefined : opened));
  }
  return opened.state;
}

function lockTimeoutOf(env: NodeJS.ProcessEnv): number {
  const text = env[LOCK_TIMEOUT_VAR]?.trim();
  if (!text) return 0;
  try {
    return parseDuration(text);
  } catch (e) {
    throw new StackwardenError("SW_SETTING_INVALID", `${LOCK_TIMEOUT_VAR}: ${(e as Error).message}`);
  }
}
