import { useCallback, useEffect, useRef, useState } from 'react';
import { type Device, deviceApi, type DeviceQuery } from '../../api/devices.ts';

/** Rows fetched per request: the largest page the API serves, so a screenful is one or two requests. */
export const BLOCK_SIZE = 100;

export type RowsQuery = Omit<DeviceQuery, 'pageNum' | 'pageSize'>;

/**
 * The whole filtered, sorted result as one long virtual list: rows are fetched from the server in
 * blocks of {@link BLOCK_SIZE} as they scroll into view, so 10,000 devices cost a screenful of requests.
 */
export function useDeviceRows(query: RowsQuery) {
  const key = JSON.stringify(query);
  const blocks = useRef(new Map<number, readonly Device[]>());
  const loading = useRef(new Set<number>());
  const generation = useRef(0);
  // The total belongs to the query it was counted for; a new query shows 'loading' until its first block.
  const [counted, setCounted] = useState<{ key: string; total: number }>();
  const [, setVersion] = useState(0);

  const load = useCallback(
    (block: number) => {
      if (blocks.current.has(block) || loading.current.has(block)) return;
      loading.current.add(block);
      const gen = generation.current;
      deviceApi.list({ ...query, pageNum: block + 1, pageSize: BLOCK_SIZE }).then(
        (page) => {
          if (gen !== generation.current) return;
          loading.current.delete(block);
          blocks.current.set(block, page.list);
          setCounted({ key, total: page.total });
          setVersion((v) => v + 1);
        },
        () => {
          if (gen === generation.current) loading.current.delete(block);
        },
      );
    },
    // The key stands for the query's content; the object itself is new on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key],
  );
  const total = counted?.key === key ? counted.total : undefined;

  // Loads again the blocks that were loaded (the rows on screen), or the first one.
  const reload = useCallback(() => {
    const shown = [...blocks.current.keys()];
    generation.current++;
    blocks.current = new Map();
    loading.current = new Set();
    for (const block of shown.length > 0 ? shown : [0]) load(block);
  }, [load]);

  useEffect(() => reload(), [reload]);

  /** The row at `index`, or undefined while its block loads. */
  const rowAt = (index: number): Device | undefined => blocks.current.get(Math.floor(index / BLOCK_SIZE))?.[index % BLOCK_SIZE];

  /** Makes sure the rows from `first` to `last` are loaded or loading. */
  const ensure = useCallback(
    (first: number, last: number) => {
      for (let b = Math.floor(first / BLOCK_SIZE); b <= Math.floor(last / BLOCK_SIZE); b++) load(b);
    },
    [load],
  );

  return { total, rowAt, ensure, reload };
}
