# A CNTK 2.7 reader program, written from CNTK's documented cntk.io API.
#
# It runs unchanged under CNTK 2.7; tests/io/test_cntk27_program.py runs it
# with only the import block below changed to minibatcher.io (the test makes
# that substitution itself and checks that nothing else differs). Not
# collected by pytest (no test_ prefix); it needs numpy and scipy.
import os
import sys

import numpy as np
import scipy.sparse

from cntk.io import (CTFDeserializer, FULL_DATA_SWEEP, INFINITELY_REPEAT, MinibatchSource,
                     MinibatchSourceFromData, StreamDef, StreamDefs, UserDeserializer,
                     StreamInformation, sequence_to_cntk_text_format)
from cntk.logging import TraceLevel

work_dir = sys.argv[1]
num_classes = 3
vocab = 50

# 1. Write a CTF file with sequence_to_cntk_text_format: sequence i has i % 4 + 1
#    words (sparse), a 2x2 "image" of features per word (dense) and one label.
lines = []
for i in range(40):
    length = i % 4 + 1
    words = [{(7 * i + t) % vocab: 1} for t in range(length)]
    features = np.arange(4 * length, dtype=np.float32).reshape(length, 2, 2) + i
    label = np.zeros((1, num_classes), dtype=np.float32)
    label[0, i % num_classes] = 1
    lines.append(sequence_to_cntk_text_format(i, {'w': words, 'f': features, 'y': label}))
path = os.path.join(work_dir, 'train.ctf')
with open(path, 'w') as f:
    f.write('\n'.join(lines) + '\n')


# 2. A reader with CNTK's StreamDef signature, tuple shapes, attribute access.
def create_reader(path, is_training):
    streams = StreamDefs(
        words=StreamDef(field='w', shape=vocab, is_sparse=True),
        features=StreamDef(field='f', shape=(2, 2), is_sparse=False),
        labels=StreamDef(field='y', shape=num_classes, is_sparse=False))
    assert streams.words.is_sparse and streams['labels'].shape == num_classes
    return MinibatchSource(CTFDeserializer(path, streams), randomize=is_training,
                           max_sweeps=INFINITELY_REPEAT if is_training else 1,
                           trace_level=TraceLevel.Warning, multithreaded_deserializer=False)


reader = create_reader(path, is_training=False)
assert not reader.is_infinite() and create_reader(path, True).is_infinite()
infos = {si.m_name: si for si in reader.stream_infos()}
assert sorted(infos) == ['features', 'labels', 'words']
assert infos['features'].sample_shape == (2, 2) and reader['words'] == reader.streams.words
assert reader.stream_info('labels').m_name == 'labels'

# 3. Read one sweep through an input_map keyed like a trainer's inputs.
input_map = {'x': reader.streams.words, 'f': reader['features'], 'y': reader.streams.labels}
seen, total = 0, 0
while True:
    mb = reader.next_minibatch(12, input_map=input_map)
    if not mb:
        break
    x, feats, y = mb['x'], mb['f'], mb['y']
    assert len(x) == x.num_sequences == y.num_sequences
    assert x.is_sparse and not y.is_sparse
    assert feats.shape == (len(feats), max(len(s) for s in feats.as_sequences()), 2, 2)
    assert y.shape == (len(y), 1, num_classes)
    assert feats.data.mask.shape == feats.shape[:2] and (feats.data.mask[:, 0] == 2).all()
    for sequence, label in zip(feats.as_sequences(), y.asarray()):
        i = int(sequence[0, 0, 0])
        assert sequence.shape == (i % 4 + 1, 2, 2) and label.argmax() == i % num_classes
        seen += 1
    words = x.as_sequences()
    assert all(scipy.sparse.issparse(w) and w.shape[1] == vocab for w in words)
    total += x.num_samples
assert seen == 40 and total == sum(i % 4 + 1 for i in range(40)), (seen, total)

# 4. Checkpoints: a new reader restored from a state continues identically.
reader = create_reader(path, is_training=True)
reader.next_minibatch(10)
state = reader.get_checkpoint_state()
expected = reader.next_minibatch(10)[reader.streams.labels].asarray()
restored = create_reader(path, is_training=True)
restored.restore_from_checkpoint(state)
assert np.array_equal(restored.next_minibatch(10)[restored.streams.labels].asarray(), expected)

# 5. MinibatchSourceFromData, as in CNTK's documentation.
N = 5
X = np.arange(3 * N).reshape(N, 3).astype(np.float32)
s = MinibatchSourceFromData(dict(x=X), max_samples=len(X))
d = s.next_minibatch(3)[s.streams['x']]
assert np.array_equal(d.data.asarray(), X[:3])
d = s.next_minibatch(3)[s.streams['x']]
assert np.array_equal(d.data.asarray(), X[3:])
assert s.next_minibatch(3) == {}
Y = np.array([i % 3 == 0 for i in range(N)], np.float32)
Y = scipy.sparse.csr_matrix((np.ones(N, np.float32), (range(N), Y)), shape=(N, 2))
s = MinibatchSourceFromData(dict(x=X, y=Y))
d = s.next_minibatch(3)[s.streams['y']]
assert d.data.asarray().todense().tolist() == [[0, 1], [1, 0], [1, 0]]


# 6. A UserDeserializer: the reader's own chunks, randomized and resumable.
class SquaresDeserializer(UserDeserializer):
    def __init__(self, chunks, per_chunk):
        super(SquaresDeserializer, self).__init__()
        self._chunks, self._per_chunk = chunks, per_chunk
        self._info = StreamInformation('x', 0, 'dense', np.float32, (1,))

    def stream_infos(self):
        return [self._info]

    def num_chunks(self):
        return self._chunks

    def get_chunk(self, chunk_id):
        start = chunk_id * self._per_chunk
        values = np.arange(start, start + self._per_chunk, dtype=np.float32) ** 2
        return {'x': values.reshape(-1, 1)}


source = MinibatchSource(SquaresDeserializer(6, 5), randomization_window_in_chunks=3,
                         randomization_seed=1, max_samples=FULL_DATA_SWEEP)
values = []
while True:
    mb = source.next_minibatch(4)
    if not mb:
        break
    values += mb[source.streams.x].asarray().ravel().tolist()
assert sorted(values) == [float(i * i) for i in range(30)] and values != sorted(values)
print('ok: %d sequences, %d words' % (seen, total))
