/**
 * The lines a start always says, whatever `logging.level` (but `silent`): what configuration was
 * read, and where the server listens. Said once each, at `info`, which is what they are: a higher
 * level hides only the lines that repeat, and an operator still sees what the process read and
 * serves. Never a value of a key: only the files' paths and a count.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { registeredClients } from './clients.ts';

/** `logger`, or a child of it at `info` when its level is higher (`silent` stays silent). */
export function startUpLogger(logger: Logger): Logger {
  const info = logger.levels.values['info'] ?? 30;
  return logger.level === 'silent' || logger.levelVal <= info ? logger : logger.child({}, { level: 'info' });
}

/** One line naming the properties file, the clients file (each or none) and how many clients are registered. */
export function logConfiguration(logger: Logger, config: Config): void {
  const { properties, clients } = config.files;
  const count = registeredClients(config).length;
  logger.info(
    { propertiesFile: properties ?? null, clientsFile: clients ?? null, clients: count },
    `configuration: properties from ${properties ?? 'no file'}; clients from ${clients ?? 'no file'} ` +
      `(${count} registered: security.jwt.client-id${count > 1 ? ` and ${count - 1} of the file` : ''})`,
  );
}
