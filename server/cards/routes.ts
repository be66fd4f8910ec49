import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../protocol/index.ts';
import type { CarrierProvider } from '../carrier/carrier.ts';
import { SimulatedCarrier } from '../carrier/simulated-carrier.ts';
import type { Db } from '../db/database.ts';
import { registerCardRoutes } from './card-routes.ts';
import { registerGroupRoutes } from './group-routes.ts';
import { registerDemandRoutes } from '../commerce/demand-routes.ts';
import { registerLicenceRoutes } from '../commerce/licence-routes.ts';
import { registerOrderRoutes } from '../commerce/order-routes.ts';
import { SandboxPayment } from '../commerce/payment.ts';
import { registerTruePointRoutes } from '../commerce/truepoint-routes.ts';

/**
 * Card, directional-group, order and bill calls; the carrier defaults to the simulated one. Online payment is
 * the sandbox only when asked for (PAYMENT_SANDBOX=on): otherwise there is none, and orders are paid offline.
 */
export function registerSimRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock; carrier?: CarrierProvider; paymentSandbox: boolean }): void {
  const carrier = deps.carrier ?? new SimulatedCarrier(deps.clock);
  registerCardRoutes(app, { db: deps.db, clock: deps.clock, carrier });
  registerGroupRoutes(app, { db: deps.db, clock: deps.clock, carrier });
  registerOrderRoutes(app, { db: deps.db, clock: deps.clock, payment: deps.paymentSandbox ? new SandboxPayment() : undefined });
  registerLicenceRoutes(app, { db: deps.db, clock: deps.clock });
  registerDemandRoutes(app, { db: deps.db, clock: deps.clock });
  registerTruePointRoutes(app, { db: deps.db, clock: deps.clock });
}
