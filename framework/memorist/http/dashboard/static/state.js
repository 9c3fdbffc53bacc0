// What the whole page shares: the signed-in account and the server's auth mode.
export const state = { me: null, status: null, authDisabled: false };

export function isAdmin() {
  return state.authDisabled || Boolean(state.me && state.me.role === "admin");
}

/** The identifier fields of a memory's scope, by the scope type the screens show. */
export const SCOPE_FIELD = { user: "user_id", agent: "agent_id", run: "run_id", app: "app_id" };
