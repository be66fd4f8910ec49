import { type Ref, type RefCallback, useCallback, useMemo, useRef } from 'react';

/**
 * `useMergeRefs` of @floating-ui/react (MIT), for Mantine's ScrollArea, whose only import of floating-ui it
 * is: vite.config.ts points that import here, so the shell's scroll areas do not bring floating-ui into its
 * first load (issue 21; a module is never split across chunks, and floating-ui.react is one module).
 * Same behaviour: one callback ref that sets every ref and runs their React 19 cleanups.
 */
export function useMergeRefs<T>(refs: readonly (Ref<T> | undefined)[]): RefCallback<T> | null {
  const cleanupRef = useRef<(() => void) | undefined>(undefined);
  const refEffect = useCallback(
    (instance: T) => {
      const cleanups = refs.map((ref) => {
        if (ref == null) return undefined;
        if (typeof ref === 'function') {
          const cleanup = ref(instance);
          return typeof cleanup === 'function' ? cleanup : () => void ref(null);
        }
        ref.current = instance;
        return () => {
          ref.current = null;
        };
      });
      return () => {
        for (const cleanup of cleanups) cleanup?.();
      };
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps, react-hooks/use-memo -- the refs are the dependencies, as in floating-ui
    refs,
  );
  return useMemo(
    () => {
      if (refs.every((ref) => ref == null)) return null;
      return (value: T | null) => {
        if (cleanupRef.current) {
          cleanupRef.current();
          cleanupRef.current = undefined;
        }
        if (value != null) cleanupRef.current = refEffect(value);
      };
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps, react-hooks/use-memo -- as above
    refs,
  );
}
