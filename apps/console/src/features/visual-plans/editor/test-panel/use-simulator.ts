/**
 * The test panel's simulator client (docs/simulator.md): one WebSocket per panel, the caller's
 * inputs out, the plan's frames in, folded into state by `simulatorReducer`.
 */
import type { ApiErrorBody } from '@voxplan/contracts';
import { bearerProtocolPrefix, type SimulatorCallee, type SimulatorServerFrame, simulatorProtocol, simulatorSignInEndedCode } from '@voxplan/contracts/simulator';
import type { Action } from '@voxplan/engine';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { API_BASE, ApiError, api } from '../../../../lib/api/client.ts';
import {
  initialSimulatorState,
  type SimulatorChannel,
  type SimulatorEvent,
  type SimulatorInput,
  type SimulatorVersion,
  simulatorReducer,
} from './simulator-state.ts';

/** An input as the panel writes it: the client names it (`id`) when it sends it. */
export type InputWithoutId = SimulatorInput extends infer Frame ? (Frame extends SimulatorInput ? Omit<Frame, 'id'> : never) : never;
export type SimulatorSend = (input: InputWithoutId, label?: string) => void;

export interface StartOptions {
  channel: SimulatorChannel;
  version: SimulatorVersion;
  variables?: Record<string, string | number | boolean | null>;
  /** The block the run begins at instead of where the Start block leads ("test from this block"). */
  start_node?: string;
  /** Run "as if" at another instant (ISO 8601 with its offset), or on a holiday: the date ranges read it. */
  as_if?: { at?: string; holiday?: boolean };
  /** Voice: the plan calls `to`, and the callee does what the tester chose. */
  outbound?: { to: string; callee: SimulatorCallee };
}

const simulatorPath = (planId: number) => `/visual-plans/${planId}/simulator`;

/**
 * Whether this user may run the plan, asked over plain HTTP before the socket opens. A browser's
 * WebSocket hides the answer of a refused upgrade (a guest's `403 readonly_only`, a `404`), and
 * cannot refresh a stale token; a plain `GET` of the same path is refused for the same reasons,
 * with the API's error body, through the client that refreshes. Allowed, it answers
 * `426 upgrade_required`. Resolves with the refusal, or null.
 */
async function refusalOf(planId: number, signal: AbortSignal): Promise<ApiErrorBody['error'] | null> {
  try {
    await api.get(simulatorPath(planId), { signal });
    return null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 426) return null;
    if (error instanceof ApiError && error.body) return error.body;
    throw error;
  }
}

function socketUrl(planId: number): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${API_BASE}${simulatorPath(planId)}`;
}

export interface SimulatorHandlers {
  /** Each action as it comes, for the voice channel's prompts. */
  onAction?: (action: Action, channel: SimulatorChannel | null) => void;
}

/**
 * Opens the simulator of `planId` while `enabled`, and closes it when the panel goes (the server
 * then hangs the running session up). `reconnect` opens a new socket after one was lost; one closed
 * because its access token expired is opened again at once.
 */
export function useSimulator(planId: number, enabled: boolean, handlers: SimulatorHandlers = {}) {
  const [state, dispatch] = useReducer(simulatorReducer, initialSimulatorState);
  const socketRef = useRef<WebSocket | null>(null);
  const channelRef = useRef<SimulatorChannel | null>(null);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const inputCount = useRef(0);
  const [connection, setConnection] = useReducer((count: number) => count + 1, 0);

  useEffect(() => {
    if (!enabled) return;
    const aborter = new AbortController();
    let socket: WebSocket | null = null;
    const emit = (event: SimulatorEvent) => {
      if (!aborter.signal.aborted) dispatch(event);
    };
    emit({ kind: 'connection', status: 'checking' });
    void (async () => {
      let refusal: ApiErrorBody['error'] | null;
      try {
        refusal = await refusalOf(planId, aborter.signal);
      } catch {
        emit({ kind: 'connection', status: 'closed' });
        return;
      }
      if (aborter.signal.aborted) return;
      if (refusal) {
        emit({ kind: 'connection', status: 'refused', error: refusal });
        return;
      }
      const token = api.getToken();
      // A browser cannot set headers on a WebSocket: the token rides as a second subprotocol, which
      // the server never echoes back (docs/simulator.md).
      socket = new WebSocket(socketUrl(planId), token ? [simulatorProtocol, `${bearerProtocolPrefix}${token}`] : [simulatorProtocol]);
      socketRef.current = socket;
      emit({ kind: 'connection', status: 'connecting' });
      socket.onopen = () => emit({ kind: 'connection', status: 'open' });
      socket.onclose = (event) => {
        // The token it opened with expired (docs/simulator.md): a new socket, with the token the
        // check before it refreshes. Any other close waits for the person's "Reconnect".
        const renewed = event.code === simulatorSignInEndedCode && event.reason === 'token_expired';
        emit({ kind: 'connection', status: 'closed', renewed });
        if (renewed && !aborter.signal.aborted) setConnection();
      };
      socket.onmessage = (message: MessageEvent<unknown>) => {
        if (typeof message.data !== 'string') return;
        const frame = JSON.parse(message.data) as SimulatorServerFrame;
        if (frame.type === 'started') channelRef.current = frame.channel;
        if (frame.type === 'action') handlersRef.current.onAction?.(frame.action, channelRef.current);
        emit({ kind: 'frame', frame });
      };
    })();
    return () => {
      aborter.abort();
      socket?.close();
      if (socketRef.current === socket) socketRef.current = null;
    };
  }, [planId, enabled, connection]);

  const sendFrame = useCallback((frame: object): boolean => {
    const socket = socketRef.current;
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(frame));
    return true;
  }, []);

  /** Starts a run; one still going is hung up by the server first (the restart). */
  const start = useCallback(
    (options: StartOptions) => {
      channelRef.current = options.channel;
      if (sendFrame({ type: 'start', ...options })) dispatch({ kind: 'start', ...options });
    },
    [sendFrame],
  );

  /** Sends what the caller did; `label` is how the transcript shows it (a chosen option's text). */
  const send: SimulatorSend = useCallback(
    (input: InputWithoutId, label?: string) => {
      // Unique on this socket's sessions: the server applies an input sent twice with one id once.
      const full = { ...input, id: `input-${++inputCount.current}` } as SimulatorInput;
      if (sendFrame(full)) dispatch({ kind: 'input', input: full, ...(label !== undefined && { label }) });
    },
    [sendFrame],
  );

  return { state, start, send, reconnect: setConnection };
}
