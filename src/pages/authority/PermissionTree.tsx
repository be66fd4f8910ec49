import { Box, Checkbox, Stack } from '@mantine/core';
import { checkState, type PermitNode } from './permission-tree.ts';

interface Props {
  readonly tree: readonly PermitNode[];
  readonly selected: ReadonlySet<string>;
  readonly onToggle: (key: string, checked: boolean) => void;
}

function Node({ node, selected, onToggle, depth }: { node: PermitNode; selected: ReadonlySet<string>; onToggle: Props['onToggle']; depth: number }) {
  const state = checkState(node, selected);
  return (
    <Box pl={depth * 22}>
      <Checkbox
        size="xs"
        label={node.label}
        checked={state !== 'unchecked'}
        indeterminate={state === 'partial'}
        onChange={(e) => onToggle(node.key, e.currentTarget.checked)}
        data-permit={node.key}
        py={3}
      />
      {node.children.map((child) => (
        <Node key={child.key} node={child} selected={selected} onToggle={onToggle} depth={depth + 1} />
      ))}
    </Box>
  );
}

/** The role form's permission tree: one checkbox per key, nested under its parent. */
export function PermissionTree({ tree, selected, onToggle }: Props) {
  return (
    <Stack gap={0} data-testid="permission-tree">
      {tree.map((node) => (
        <Node key={node.key} node={node} selected={selected} onToggle={onToggle} depth={0} />
      ))}
    </Stack>
  );
}
