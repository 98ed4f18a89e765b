/**
 * Loaded (`--import`) into a server process a test starts as if it ran on another machine: the
 * board's UUID systeminformation reads is TEST_HARDWARE_ID. The product has no such setting (a
 * hardware id one can choose would defeat a licence bound to a machine); only tests load this.
 */
import si from 'systeminformation';

const hardwareId = process.env.TEST_HARDWARE_ID;
if (hardwareId) {
  const real = si.uuid.bind(si);
  // The library's export object is the one every importer reads its functions from.
  (si as { uuid: () => Promise<si.Systeminformation.UuidData> }).uuid = async () => ({ ...(await real()), hardware: hardwareId });
}
