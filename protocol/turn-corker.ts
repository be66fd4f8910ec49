/** The part of a socket that write batching needs (Node's net.Socket has it). */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/**
 * Returns `hold(socket)`, which corks a socket for the rest of the current turn; every socket held in a
 * turn is uncorked together when `defer` calls back (Node: setImmediate, right after the turn's I/O
 * callbacks), so frames sent to one socket in one turn leave in one write. On loopback each write is a
 * system call that also runs the receiver's TCP path, so this matters wherever many messages meet.
 */
export function turnCorker(defer: (release: () => void) => void): (socket: Corkable) => void {
  let corked = new Set<Corkable>();
  const release = () => {
    // Taken first, so a socket that fails to uncork cannot leave the set (and every later send) stuck.
    const sockets = corked;
    corked = new Set();
    for (const socket of sockets) {
      try {
        socket.uncork();
      } catch {
        // a destroyed socket: its owner hears the close
      }
    }
  };
  return (socket) => {
    if (corked.has(socket)) return;
    socket.cork();
    if (corked.size === 0) defer(release);
    corked.add(socket);
  };
}
