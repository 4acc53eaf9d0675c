namespace Demo
{
    public interface IShape { double Area(); }

    public class Square : IShape
    {
        public double Side { get; set; }
        public double Area() { return Side * Side; }
    }

    public enum Kind { A, B }
    public struct P { public int X; }
}
