export * from './delivery.port';
export * from './file-mailbox.delivery';
export * from './smtp.delivery';
export * from './composite.delivery';
export * from './delivery.factory';
