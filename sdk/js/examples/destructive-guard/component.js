// The component's entry: connects the hook to hookhost's `host` and `state` interfaces and
// exports it as the `handler` of hookhost:hooks@0.2.0. The hook itself lives in hook.js, which
// runs under plain Node too (npm test).
import host from "hookhost:hooks/host@0.2.0";
import state from "hookhost:hooks/state@0.2.0";
import { exportHook } from "./hook-sdk.js";
import { DestructiveGuard } from "./hook.js";

export const handler = exportHook(DestructiveGuard, { host, state });
