-- TPC-H Q11, important stock identification (NATION = GERMANY, FRACTION = 0.0001 / SF = 0.001)
SELECT ps_partkey, sum(ps_supplycost * ps_availqty) AS value
FROM tpch.partsupp, tpch.supplier, tpch.nation
WHERE ps_suppkey = s_suppkey
  AND s_nationkey = n_nationkey
  AND n_name = 'GERMANY'
GROUP BY ps_partkey
HAVING sum(ps_supplycost * ps_availqty) > (
  SELECT sum(ps_supplycost * ps_availqty) * 0.001
  FROM tpch.partsupp, tpch.supplier, tpch.nation
  WHERE ps_suppkey = s_suppkey
    AND s_nationkey = n_nationkey
    AND n_name = 'GERMANY')
ORDER BY value DESC, ps_partkey
