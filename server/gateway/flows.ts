import type { ConsoleLink } from './console-endpoint.ts';

/** Flows one console may hold open at once (shell sessions and transfers); past it the oldest is forgotten. */
export const MAX_FLOWS_PER_CONSOLE = 64;

export interface FlowRoute {
  readonly flowId: string;
  readonly sn: string;
  readonly console: ConsoleLink;
}

/**
 * Which console and device a flow (shell session, file transfer, screenshot) joins. A console opens a
 * flow by sending a permitted command with a flowId to a device; from then on the device's messages and
 * binary chunks on that flow reach that console, and the console's acknowledgements and chunks reach
 * that device. Nothing else may use the flow.
 */
export class FlowTable {
  readonly #routes = new Map<string, FlowRoute>();
  readonly #byConsole = new Map<ConsoleLink, string[]>();

  /** Binds a flow to a console and device; false when another console or device already holds it. */
  bind(flowId: string, sn: string, console: ConsoleLink): boolean {
    const existing = this.#routes.get(flowId);
    if (existing) return existing.console === console && existing.sn === sn;
    this.#routes.set(flowId, { flowId, sn, console });
    const list = this.#byConsole.get(console) ?? [];
    list.push(flowId);
    if (list.length > MAX_FLOWS_PER_CONSOLE) this.#routes.delete(list.shift() as string);
    this.#byConsole.set(console, list);
    return true;
  }

  get(flowId: string): FlowRoute | undefined {
    return this.#routes.get(flowId);
  }

  /** Forgets every flow of a console that went away. */
  dropConsole(console: ConsoleLink): void {
    for (const flowId of this.#byConsole.get(console) ?? []) this.#routes.delete(flowId);
    this.#byConsole.delete(console);
  }

  get size(): number {
    return this.#routes.size;
  }
}
