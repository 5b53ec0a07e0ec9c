BEGIN TRANSACTION;
CREATE TABLE annotators (name TEXT PRIMARY KEY, created_at TEXT NOT NULL);
INSERT INTO "annotators" VALUES('alice','2026-11-25T20:19:39.203+00:00');
INSERT INTO "annotators" VALUES('Zoë O''Brien','2026-11-25T20:19:39.210+00:00');
INSERT INTO "annotators" VALUES('bob','2026-11-25T20:19:39.214+00:00');
CREATE TABLE criteria (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL REFERENCES tasks(name),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    scale_min REAL NOT NULL DEFAULT 1,
    scale_max REAL NOT NULL DEFAULT 5,
    UNIQUE (task, name)
);
INSERT INTO "criteria" VALUES(1,'eli5',0,'Clarity','Use simple and easy-to-understand language.',1.0,5.0);
INSERT INTO "criteria" VALUES(2,'eli5',1,'Accuracy','Answers should be factually correct.',1.0,3.0);
INSERT INTO "criteria" VALUES(3,'rate',0,'Helpful','Is it helpful?',0.0,10.0);
INSERT INTO "criteria" VALUES(4,'wide',0,'Tone','',1.0,7.0);
INSERT INTO "criteria" VALUES(5,'wide',1,'Style','Good style.',1.0,9.0);
CREATE TABLE criteria_actions (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL REFERENCES tasks(name),
    annotator TEXT NOT NULL REFERENCES annotators(name),
    criterion_id INTEGER REFERENCES criteria(id),
    action TEXT NOT NULL CHECK (action IN ('approve', 'delete', 'revise', 'add')),
    name TEXT,
    description TEXT,
    reason TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    added_id INTEGER REFERENCES criteria_actions(id)
);
INSERT INTO "criteria_actions" VALUES(1,'eli5','alice',1,'approve',NULL,NULL,'fine','2026-11-25T20:19:39.315+00:00',NULL);
INSERT INTO "criteria_actions" VALUES(2,'eli5','alice',2,'revise','Correctness','Facts.','r','2026-11-25T20:19:39.331+00:00',NULL);
INSERT INTO "criteria_actions" VALUES(3,'eli5','alice',NULL,'add','Analogy','One.','r','2026-11-25T20:19:39.359+00:00',NULL);
INSERT INTO "criteria_actions" VALUES(4,'eli5','alice',NULL,'revise','Analogies','Some.','plural','2026-11-25T20:19:39.372+00:00',3);
INSERT INTO "criteria_actions" VALUES(5,'eli5','Zoë O''Brien',2,'delete',NULL,NULL,'vague','2026-11-25T20:19:39.376+00:00',NULL);
INSERT INTO "criteria_actions" VALUES(6,'eli5','Zoë O''Brien',NULL,'add','Fun',NULL,'r','2026-11-25T20:19:39.378+00:00',NULL);
INSERT INTO "criteria_actions" VALUES(7,'eli5','Zoë O''Brien',NULL,'delete',NULL,NULL,'no','2026-11-25T20:19:39.381+00:00',6);
CREATE TABLE drafts (
    item_id TEXT NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    score REAL,
    conclusion TEXT NOT NULL DEFAULT '',
    evidence TEXT NOT NULL DEFAULT '',
    sentences TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (item_id, criterion)
);
INSERT INTO "drafts" VALUES('q1','Clarity',4.0,'The answer is clear.','squeeze flowers','["The answer uses simple words.", "It gives a concrete example.", "A child could follow it."]');
INSERT INTO "drafts" VALUES('q1','Accuracy',2.0,'Mostly right.','','["The facts are mostly right.", "One detail is vague."]');
INSERT INTO "drafts" VALUES('q1','',4.0,'','','[]');
INSERT INTO "drafts" VALUES('q2','Clarity',4.0,'The answer is clear.','squeeze flowers','["The answer uses simple words.", "It gives a concrete example.", "A child could follow it."]');
INSERT INTO "drafts" VALUES('q2','Accuracy',2.0,'Mostly right.','','["The facts are mostly right.", "One detail is vague."]');
INSERT INTO "drafts" VALUES('q2','',4.0,'','','[]');
INSERT INTO "drafts" VALUES('q3','Clarity',4.0,'The answer is clear.','squeeze flowers','["The answer uses simple words.", "It gives a concrete example.", "A child could follow it."]');
INSERT INTO "drafts" VALUES('q3','Accuracy',2.0,'Mostly right.','','["The facts are mostly right.", "One detail is vague."]');
INSERT INTO "drafts" VALUES('q3','',4.0,'','','[]');
INSERT INTO "drafts" VALUES('r1','Helpful',7.5,'Good.','A.','["Good.", "Short."]');
INSERT INTO "drafts" VALUES('r1','',NULL,'','','[]');
CREATE TABLE form_posts (
    token TEXT PRIMARY KEY,
    annotator TEXT NOT NULL,
    location TEXT NOT NULL,
    created_at TEXT NOT NULL
);
INSERT INTO "form_posts" VALUES('token-1','alice','/item?id=q1#overall','2026-11-25T20:19:39.387+00:00');
INSERT INTO "form_posts" VALUES('token-2','alice','/item?id=q1#overall','2026-11-25T20:19:39.394+00:00');
CREATE TABLE invites (
    id INTEGER PRIMARY KEY,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
INSERT INTO "invites" VALUES(1,'alice','h1','2026-11-25T20:19:39.218+00:00','2026-11-25T20:19:39.273+00:00');
INSERT INTO "invites" VALUES(2,'alice','h2','2026-11-25T20:19:39.230+00:00','2026-11-25T20:19:39.273+00:00');
INSERT INTO "invites" VALUES(3,'Zoë O''Brien','h3','2026-11-25T20:19:39.254+00:00',NULL);
INSERT INTO "invites" VALUES(4,'alice','h4','2026-11-25T20:19:39.294+00:00',NULL);
CREATE TABLE items (
    id TEXT PRIMARY KEY,
    task TEXT NOT NULL REFERENCES tasks(name),
    position INTEGER NOT NULL,
    query TEXT NOT NULL,
    output TEXT NOT NULL,
    system TEXT,
    metadata TEXT NOT NULL DEFAULT '{}'
);
INSERT INTO "items" VALUES('q1','eli5',0,'How is perfume made?','People squeeze flowers and keep the smell in oil.','turbo','{}');
INSERT INTO "items" VALUES('q2','eli5',1,'How do bees make honey?','<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> Bees make honey.','turbo','{}');
INSERT INTO "items" VALUES('q3','eli5',2,'Why is the sky blue?','Sunlight bounces off the air, and blue bounces most.','turbo','{}');
INSERT INTO "items" VALUES('r1','rate',3,'Q?','A.',NULL,'{"source": "éval", "n": [1, 2]}');
INSERT INTO "items" VALUES('w1','wide',4,'Q','O',NULL,'{}');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('schema_version','4');
CREATE TABLE score_actions (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    score REAL NOT NULL,
    created_at TEXT NOT NULL
);
INSERT INTO "score_actions" VALUES(1,'q1','Clarity','alice',2.0,'2026-11-25T20:19:39.388+00:00');
INSERT INTO "score_actions" VALUES(2,'q1','Accuracy','alice',2.0,'2026-11-25T20:19:39.388+00:00');
INSERT INTO "score_actions" VALUES(3,'q1','Analogy','alice',3.5,'2026-11-25T20:19:39.388+00:00');
INSERT INTO "score_actions" VALUES(4,'q1','','alice',4.0,'2026-11-25T20:19:39.394+00:00');
INSERT INTO "score_actions" VALUES(5,'q2','Clarity','alice',1.0,'2026-11-25T20:19:39.490+00:00');
INSERT INTO "score_actions" VALUES(6,'q3','Clarity','Zoë O''Brien',5.0,'2026-11-25T20:19:39.530+00:00');
INSERT INTO "score_actions" VALUES(7,'q3','Clarity','bob',3.0,'2026-11-25T20:19:39.535+00:00');
INSERT INTO "score_actions" VALUES(8,'q3','','bob',2.5,'2026-11-25T20:19:39.535+00:00');
INSERT INTO "score_actions" VALUES(9,'r1','Helpful','bob',8.0,'2026-11-25T20:19:39.535+00:00');
CREATE TABLE sentence_actions (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    sentence INTEGER,
    action TEXT NOT NULL CHECK (action IN ('pass', 'revise', 'delete', 'add')),
    text TEXT,
    created_at TEXT NOT NULL
);
INSERT INTO "sentence_actions" VALUES(1,'q1','Clarity','alice',0,'pass',NULL,'2026-11-25T20:19:39.387+00:00');
INSERT INTO "sentence_actions" VALUES(2,'q1','Clarity','alice',1,'pass',NULL,'2026-11-25T20:19:39.388+00:00');
INSERT INTO "sentence_actions" VALUES(3,'q1','Clarity','alice',2,'pass',NULL,'2026-11-25T20:19:39.388+00:00');
INSERT INTO "sentence_actions" VALUES(4,'q1','Accuracy','alice',0,'pass',NULL,'2026-11-25T20:19:39.388+00:00');
INSERT INTO "sentence_actions" VALUES(5,'q1','Accuracy','alice',1,'pass',NULL,'2026-11-25T20:19:39.388+00:00');
INSERT INTO "sentence_actions" VALUES(6,'q2','Clarity','alice',NULL,'add','Extra.','2026-11-25T20:19:39.414+00:00');
INSERT INTO "sentence_actions" VALUES(7,'q2','Clarity','alice',-6,'revise','Extra, edited.','2026-11-25T20:19:39.431+00:00');
INSERT INTO "sentence_actions" VALUES(8,'q2','Clarity','alice',1,'revise','Edited.','2026-11-25T20:19:39.450+00:00');
INSERT INTO "sentence_actions" VALUES(9,'q2','Clarity','alice',2,'delete',NULL,'2026-11-25T20:19:39.470+00:00');
INSERT INTO "sentence_actions" VALUES(10,'q3','Clarity','Zoë O''Brien',0,'pass',NULL,'2026-11-25T20:19:39.510+00:00');
INSERT INTO "sentence_actions" VALUES(11,'q3','Clarity','bob',0,'pass',NULL,'2026-11-25T20:19:39.535+00:00');
INSERT INTO "sentence_actions" VALUES(12,'q3','Clarity','bob',1,'revise',NULL,'2026-11-25T20:19:39.535+00:00');
INSERT INTO "sentence_actions" VALUES(13,'q3','Clarity','bob',7,'delete',NULL,'2026-11-25T20:19:39.535+00:00');
INSERT INTO "sentence_actions" VALUES(14,'q3','Accuracy','bob',NULL,'add','Imported.','2026-11-25T20:19:39.535+00:00');
CREATE TABLE tasks (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    scale_min REAL,
    scale_max REAL,
    scale_derived INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "tasks" VALUES('eli5','Answer Reddit questions so a five-year-old understands.',NULL,NULL,0);
INSERT INTO "tasks" VALUES('rate','Rate it.',0.0,10.0,0);
INSERT INTO "tasks" VALUES('wide','Widened.',1.0,9.0,1);
CREATE INDEX sentence_actions_by_item ON sentence_actions (item_id, annotator, criterion);
CREATE INDEX score_actions_by_item ON score_actions (item_id, annotator, criterion);
CREATE INDEX criteria_actions_by_task ON criteria_actions (task, annotator);
COMMIT;
