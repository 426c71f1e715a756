/**
 * The slice of GitHub's REST API the workflows' github-script steps call (issues and issue
 * comments), in memory, with the shapes and filters of the real endpoints: `labels` and `state`
 * filters, pull requests listed as issues with a `pull_request` key, comments authored by the
 * token's bot. It stands in for the `github` object actions/github-script hands to a script.
 */

export interface StoredComment {
  id: number;
  issue_number: number;
  body: string;
  user: { login: string; type: "Bot" | "User" };
}

export interface StoredIssue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  state_reason?: string;
  labels: { name: string }[];
  pull_request?: Record<string, unknown>;
}

const BOT = { login: "github-actions[bot]", type: "Bot" as const };

type Params = Record<string, unknown>;

export class GitHubApiStandIn {
  readonly issues: StoredIssue[] = [];
  readonly comments: StoredComment[] = [];
  /** Every call made, as `method` names (for assertions on what a script did). */
  readonly calls: string[] = [];
  private nextComment = 1000;
  private nextIssue = 100;

  constructor(private readonly repo: { owner: string; repo: string }) {}

  /** A pull request, which the issues API lists as an issue. */
  addPullRequest(number: number, title: string): void {
    this.issues.push({ number, title, body: "", state: "open", labels: [], pull_request: { url: `pulls/${number}` } });
  }

  /** A comment written by a person (scripts must leave it alone even when it quotes a marker). */
  addHumanComment(issue_number: number, body: string): void {
    this.comments.push({ id: this.nextComment++, issue_number, body, user: { login: "octocat", type: "User" } });
  }

  private checkRepo(p: Params): void {
    if (p.owner !== this.repo.owner || p.repo !== this.repo.repo)
      throw new Error(`unexpected repository ${String(p.owner)}/${String(p.repo)}`);
  }

  private issue(n: unknown): StoredIssue {
    const i = this.issues.find((x) => x.number === n);
    if (!i) throw Object.assign(new Error(`Not Found: issue ${String(n)}`), { status: 404 });
    return i;
  }

  readonly rest = {
    issues: {
      listComments: async (p: Params) => {
        this.checkRepo(p);
        this.calls.push("issues.listComments");
        this.issue(p.issue_number);
        return { data: this.comments.filter((c) => c.issue_number === p.issue_number).map((c) => ({ ...c })) };
      },
      createComment: async (p: Params) => {
        this.checkRepo(p);
        this.calls.push("issues.createComment");
        this.issue(p.issue_number);
        const c: StoredComment = { id: this.nextComment++, issue_number: Number(p.issue_number), body: String(p.body), user: BOT };
        this.comments.push(c);
        return { data: { ...c } };
      },
      updateComment: async (p: Params) => {
        this.checkRepo(p);
        this.calls.push("issues.updateComment");
        const c = this.comments.find((x) => x.id === p.comment_id);
        if (!c) throw Object.assign(new Error(`Not Found: comment ${String(p.comment_id)}`), { status: 404 });
        c.body = String(p.body);
        return { data: { ...c } };
      },
      listForRepo: async (p: Params) => {
        this.checkRepo(p);
        this.calls.push("issues.listForRepo");
        const state = (p.state as string | undefined) ?? "open";
        const labels = typeof p.labels === "string" && p.labels ? p.labels.split(",") : [];
        return {
          data: this.issues
            .filter((i) => state === "all" || i.state === state)
            .filter((i) => labels.every((l) => i.labels.some((x) => x.name === l)))
            .map((i) => ({ ...i })),
        };
      },
      create: async (p: Params) => {
        this.checkRepo(p);
        this.calls.push("issues.create");
        const i: StoredIssue = {
          number: this.nextIssue++,
          title: String(p.title),
          body: String(p.body ?? ""),
          state: "open",
          labels: ((p.labels ?? []) as string[]).map((name) => ({ name })),
        };
        this.issues.push(i);
        return { data: { ...i } };
      },
      update: async (p: Params) => {
        this.checkRepo(p);
        this.calls.push("issues.update");
        const i = this.issue(p.issue_number);
        if (p.title !== undefined) i.title = String(p.title);
        if (p.body !== undefined) i.body = String(p.body);
        if (p.state !== undefined) i.state = p.state as StoredIssue["state"];
        if (p.state_reason !== undefined) i.state_reason = String(p.state_reason);
        return { data: { ...i } };
      },
    },
  };

  /** Octokit's paginate: every page's items (the stand-in answers in one page). */
  readonly paginate = async (method: (p: Params) => Promise<{ data: unknown[] }>, params: Params): Promise<unknown[]> =>
    (await method(params)).data;
}
