/// <reference lib="webworker" />
import type { BridgePort, FromWorker, ToWorker } from './bridge-protocol.ts';
import { EngineHost } from './engine-host.ts';
import { browserWebSocketTransport } from './websocket-transport.ts';

// Worker entry: the protocol engine runs here, off the main thread.
new EngineHost(self as unknown as BridgePort<ToWorker, FromWorker>, browserWebSocketTransport);
