/** A message between server nodes: plain data, encoded with msgpack on the wire. */
export type BusMessage = Record<string, unknown>;

/**
 * Publish/subscribe between server nodes. One node uses the in-process bus; several nodes share NATS.
 * Subjects are exact names (no wildcards), so both implementations behave the same.
 */
export interface Bus {
  /** True when other nodes may be listening (NATS); false for the in-process bus. */
  readonly shared: boolean;
  publish(subject: string, message: BusMessage): void;
  /** Returns the function that ends the subscription. */
  subscribe(subject: string, handler: (message: BusMessage) => void): () => void;
  close(): Promise<void>;
  /**
   * False while a shared bus cannot reach the other nodes (messages then stay on this node); absent on a
   * bus that never loses them. Silence heard meanwhile says nothing about the other nodes.
   */
  readonly connected?: boolean;
  /** Hears the bus come back after it was cut off; returns the function that stops listening. */
  onReconnect?(listener: () => void): () => void;
}

/** Subjects; a NATS bus puts its cluster's prefix before each, so clusters can share a NATS server. */
export const Subject = {
  /** Commands for a device, published by the node a console is on, heard by the node holding the device. */
  deviceCommand: (sn: string) => `device.${sn}.cmd`,
  /** Replies to a node's forwarded commands. */
  nodeReplies: (nodeId: string) => `node.${nodeId}.reply`,
  presence: 'presence',
  sessionEnded: 'session.ended',
  /** Roles, accounts or organisations changed: consoles reload the rights they cached (server/accounts/rights-bus.ts). */
  rightsChanged: 'rights.changed',
  /** Every node's beat (`{node}`), and its goodbye (`{node, leaving: true}`) on a graceful shutdown. */
  nodeAlive: 'node.alive',
  /** Outcomes of commands to a device, for consoles on other nodes that watch it. */
  deviceOutcome: (sn: string) => `device.${sn}.outcome`,
  /** A device's secret was revoked: the node holding it closes its socket. */
  deviceRevoked: 'device.revoked',
  /**
   * Devices moved to another organisation (`{node, seq, sns, orgId}`): the process holding one closes its
   * socket, and every process's consoles outside the new organisation let go of their watches and flows.
   */
  deviceMoved: 'device.moved',
} as const;
