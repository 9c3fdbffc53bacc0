// What the whole page shares: the signed-in account and the server's auth mode.
export const state = { me: null, status: null, authDisabled: false };

export function isAdmin() {
  return state.authDisabled || Boolean(state.me && state.me.role === "admin");
}
