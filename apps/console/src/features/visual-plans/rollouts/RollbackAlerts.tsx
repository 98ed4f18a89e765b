import type { RolloutAutoRollbackEvent } from '@voxplan/contracts';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { loadRolloutTexts } from '../../../i18n/index.ts';
import { useAuth } from '../../../lib/auth.tsx';
import { readEventStreamOnce } from '../../dashboard/event-stream-once.ts';
import { keepFollowing } from '../../dashboard/live-feed.ts';
import { onRollback, publishRollback } from '../../dashboard/live-rollbacks.ts';

/** The live feed's rollbacks only (`only=rollouts`): not every block every session enters, on every screen. */
const ROLLBACKS_PATH = '/stats/live/events?only=rollouts';
const rollbackTypes: readonly RolloutAutoRollbackEvent['type'][] = ['rollout.auto_rollback'];

/**
 * Tells whoever has the console open, on any screen, that a rollout of the working tenant was
 * rolled back by its automatic rule (docs/rollouts.md, "In the console"). Renders nothing; mounted
 * once by the layout. One stream per tab: where the screen follows the whole live feed (the
 * dashboard, `ownStream` false) its feed brings the rollbacks; elsewhere this follows its own.
 * The toast and the rollout texts load when a rollback comes, not before.
 */
export function RollbackAlerts({ ownStream }: { ownStream: boolean }) {
  const { tenantId } = useAuth();
  const navigate = useNavigate();
  const latestNavigate = useRef(navigate);
  latestNavigate.current = navigate;
  useEffect(() => {
    // An administrator without a working tenant would hear every tenant's, with plans it cannot open from here.
    if (!tenantId) return;
    let gone = false;
    const show = async (event: RolloutAutoRollbackEvent) => {
      const [{ showRollbackToast }] = await Promise.all([import('./rollback-toast.tsx'), loadRolloutTexts()]);
      if (!gone) showRollbackToast(event, (path) => void latestNavigate.current(path));
    };
    const stopListening = onRollback((event) => void show(event));
    return () => {
      gone = true;
      stopListening();
    };
  }, [tenantId]);
  useEffect(() => {
    if (!tenantId || !ownStream) return;
    const stop = new AbortController();
    void keepFollowing(
      () => readEventStreamOnce(ROLLBACKS_PATH, rollbackTypes, () => undefined, (_type, data) => publishRollback(data as RolloutAutoRollbackEvent), stop.signal),
      () => undefined,
      stop.signal,
    );
    return () => stop.abort();
  }, [tenantId, ownStream]);
  return null;
}
